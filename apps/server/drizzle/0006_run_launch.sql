-- How a run's workers were started (issue 19): launcher, Slurm job ids, each worker's host and rack.
ALTER TABLE "runs" ADD COLUMN "launch" jsonb;