-- Run parameters added after migration 0004 with a default that is what older runs did: runs
-- stored before a field existed get that default (a stored value always wins, `||` keeps the
-- right side's). Responses are encoded through the schema, which needs every field: without this
-- a database from an older server could not list its runs.
--   launcher local (before launchers every worker was a local process), assignment exact,
--   approximateSearch index, partials exact (float64 sums before: `exact` sends them bitwise).
UPDATE "runs"
SET "params" = '{"launcher":"local","assignment":"exact","approximateSearch":"index","partials":"exact"}'::jsonb || "params"
WHERE NOT ("params" ? 'launcher' AND "params" ? 'assignment' AND "params" ? 'approximateSearch' AND "params" ? 'partials');
