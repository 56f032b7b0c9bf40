-- The Map-Collective paper's names for the regroup aggregations: what was stored as 'local'
-- (local merge, all-to-all by block, gather) is the paper's 'three-stage'; what was stored as
-- 'three-stage' (ring reduce-scatter, then gather) is now 'ring'. One statement, so no value is
-- renamed twice.
UPDATE "runs"
SET "params" = jsonb_set(
  "params",
  '{aggregation}',
  to_jsonb(CASE "params"->>'aggregation' WHEN 'three-stage' THEN 'ring' ELSE 'three-stage' END)
)
WHERE "params"->>'aggregation' IN ('three-stage', 'local');
