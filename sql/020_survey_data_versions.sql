-- The site data version a kept survey's prediction was made from (sql/018), so a calibration can say
-- which site data it was fitted on. Null for surveys kept before versions.
ALTER TABLE survey_plots ADD COLUMN data_version text;
ALTER TABLE survey_upload_rows ADD COLUMN data_version text;
