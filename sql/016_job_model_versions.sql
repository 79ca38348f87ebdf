-- The model version a job is scored with, chosen when it is uploaded (POST /v1/jobs?model_version=)
-- and kept with it, so every chunk of it, whenever a worker takes it, answers with that version.
-- Jobs uploaded before versions could be named were all scored with the base version 0.2.
ALTER TABLE jobs ADD COLUMN model_version text NOT NULL DEFAULT '0.2';
ALTER TABLE jobs ALTER COLUMN model_version DROP DEFAULT;
