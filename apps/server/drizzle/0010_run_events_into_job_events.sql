-- Runs' events move into the one job feed (issue 29): same seq, type, data and time, kind 'run'.
INSERT INTO "job_events" ("kind", "job_id", "seq", "type", "data", "created_at")
SELECT 'run', "run_id", "seq", "type", "data", "created_at" FROM "run_events";
