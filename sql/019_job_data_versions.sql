-- The site data version each chunk of a job was scored from (sql/018): a job lists the versions its
-- chunks saw, one unless a version was activated while it ran.
ALTER TABLE job_result_chunks ADD COLUMN data_version text;
