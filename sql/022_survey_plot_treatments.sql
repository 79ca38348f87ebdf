-- The establishment treatments a surveyed plot had (docs/surveys.md, docs/treatments.md), under their API
-- names, the ones named only; null when the plot named none. Its prediction is then the treated one, and
-- treatment_slopes keeps, per effect applied (by the effect's id in data/treatments.json), how far the
-- prediction's logit at the plot's age moves per unit of the effect's share: what a calibration needs
-- to estimate the effects from the plots. Plots kept before this named none: both stay null.
ALTER TABLE survey_plots ADD COLUMN treatments jsonb;
ALTER TABLE survey_plots ADD COLUMN treatment_slopes jsonb;
ALTER TABLE survey_upload_rows ADD COLUMN treatments jsonb;
ALTER TABLE survey_upload_rows ADD COLUMN treatment_slopes jsonb;
