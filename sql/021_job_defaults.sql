-- The defaults a GeoJSON job was uploaded with (POST /v1/jobs?species_code=…&period=…: the properties a
-- feature lacks), as the query string gave them, kept with the job so its report can print them. CSV and
-- NDJSON jobs take none ({}); jobs uploaded before this kept none either.
ALTER TABLE jobs ADD COLUMN defaults jsonb NOT NULL DEFAULT '{}';
