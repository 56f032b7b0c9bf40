-- Runs stored before `init` existed (a run's init method, 2026-11-25) were initialised by
-- k-means++ seeded by `seed` (the request's documentation then: "The init is k-means++ seeded by
-- `seed`"; `DEFAULT_INIT_METHOD` is k-means++ so that old seeds keep their centroids). Responses are
-- encoded through the schema, which needs the field: without this such runs could not be listed.
UPDATE "runs"
SET "params" = '{"init":"kmeans++"}'::jsonb || "params"
WHERE NOT ("params" ? 'init');
