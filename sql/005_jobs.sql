-- Portfolio jobs: an upload of up to a million rows scored in chunks by workers (in the server or on
-- their own, `npm run worker`). A job belongs to the account of the key that created it.
CREATE TABLE jobs (
  id            text PRIMARY KEY,
  account_id    text NOT NULL,
  key_id        text NOT NULL,
  tier          text NOT NULL,
  format        text NOT NULL CHECK (format IN ('csv', 'ndjson')),
  -- The input's columns, echoed first in every result row (CSV: the header as uploaded).
  columns       text[] NOT NULL,
  -- receiving: the upload is still arriving (never visible to the API); then queued → running → a final status.
  status        text NOT NULL CHECK (status IN ('receiving', 'queued', 'running', 'succeeded', 'failed', 'cancelled')),
  rows_total    integer NOT NULL DEFAULT 0,
  chunk_rows    integer NOT NULL,
  chunks_total  integer NOT NULL DEFAULT 0,
  failure       text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz,
  expires_at    timestamptz NOT NULL
);

CREATE INDEX jobs_by_account ON jobs (account_id, created_at DESC);
CREATE INDEX jobs_by_expiry ON jobs (expires_at);
CREATE INDEX jobs_unfinished ON jobs (status) WHERE status IN ('queued', 'running');

-- The upload, one row per chunk of `chunk_rows` input rows (JSON array of the rows, each already
-- checked: a request to score, or the error that row alone failed with).
CREATE TABLE job_input_chunks (
  job_id       text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  chunk_index  integer NOT NULL,
  first_row    integer NOT NULL,
  rows         text NOT NULL,
  PRIMARY KEY (job_id, chunk_index)
);

-- A chunk's results, written once (a retried chunk finds its row and writes nothing): the rows as CSV
-- lines and as NDJSON lines, their byte lengths (for Range requests), the rows that failed by code.
CREATE TABLE job_result_chunks (
  job_id        text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  chunk_index   integer NOT NULL,
  rows_done     integer NOT NULL,
  rows_failed   integer NOT NULL,
  errors        jsonb NOT NULL,
  csv           text NOT NULL,
  csv_bytes     integer NOT NULL,
  ndjson        text NOT NULL,
  ndjson_bytes  integer NOT NULL,
  written_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, chunk_index)
);
