-- GeoJSON jobs: a FeatureCollection of points (predictions) and stands (stocking plans). Their results
-- are also kept as GeoJSON features (one per line, each after a comma but the very first), so a
-- download is the collection's opening, the chunks in order and its close; other jobs keep ''.
ALTER TABLE jobs DROP CONSTRAINT jobs_format_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_format_check CHECK (format IN ('csv', 'ndjson', 'geojson'));
ALTER TABLE job_result_chunks ADD COLUMN geojson text NOT NULL DEFAULT '';
ALTER TABLE job_result_chunks ADD COLUMN geojson_bytes integer NOT NULL DEFAULT 0;
