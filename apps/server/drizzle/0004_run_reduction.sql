-- Issue 20: a run's reduce/combine stage has a `reduction`. Runs stored before it ran the regroup
-- by key block, which is `regroup` (the default); responses are encoded through the schema, which
-- needs the field.
UPDATE "runs"
SET "params" = jsonb_set("params", '{reduction}', '"regroup"')
WHERE "params"->>'reduction' IS NULL;
