-- Job texts (uploaded rows and rendered results, ~100-300 KB a chunk) compressed with lz4 rather than
-- the default pglz: the same size within a few percent, at a seventh of the primary's CPU per chunk
-- written, which is most of what scoring costs the primary once lookups go to read replicas. Values
-- already stored keep their pglz form; a PostgreSQL built without lz4 keeps pglz throughout.
DO $$
BEGIN
  ALTER TABLE job_result_chunks
    ALTER COLUMN csv SET COMPRESSION lz4,
    ALTER COLUMN ndjson SET COMPRESSION lz4,
    ALTER COLUMN geojson SET COMPRESSION lz4;
  ALTER TABLE job_input_chunks ALTER COLUMN rows SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this PostgreSQL build: job texts stay compressed with pglz';
END
$$;
