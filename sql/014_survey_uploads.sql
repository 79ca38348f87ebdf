-- Bulk survey uploads (POST /v1/surveys/uploads): what each upload read, refused and stored.
-- Rows are staged apart from survey_plots while the body streams in, and reach survey_plots in one
-- transaction at the end, so an upload cut short (client gone, server killed) leaves no plot behind.
CREATE TABLE survey_uploads (
  id              text PRIMARY KEY,
  -- The account (rotation chain) of the key that sent it: never visible to another account.
  account_id      text NOT NULL,
  key_id          text NOT NULL,
  -- receiving: the body is streaming in; committed: its valid rows are stored; refused: nothing
  -- stored (rows refused without skip_invalid, or over the account's limit); failed: nothing stored
  -- (an unreadable body, the client gone, the server stopped).
  status          text NOT NULL CHECK (status IN ('receiving', 'committed', 'refused', 'failed')),
  format          text NOT NULL CHECK (format IN ('csv', 'ndjson', 'geojson')),
  skip_invalid    boolean NOT NULL,
  rows_read       integer NOT NULL DEFAULT 0,
  rows_valid      integer NOT NULL DEFAULT 0,
  rows_refused    integer NOT NULL DEFAULT 0,
  -- Surveys written: a (plot_id, surveyed_on) sent twice counts once.
  stored          integer NOT NULL DEFAULT 0,
  ignored_columns text[] NOT NULL DEFAULT '{}',
  -- Why nothing was stored: {"code", "message"}.
  failure         jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  -- Moved on while the upload streams; one left receiving and untouched belonged to a stopped server.
  touched_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz
);
CREATE INDEX survey_uploads_by_account ON survey_uploads (account_id, created_at);
CREATE INDEX survey_uploads_receiving ON survey_uploads (touched_at) WHERE status = 'receiving';

-- Each refused row of an upload: its number (1 = the first data row or feature), field and reason.
CREATE TABLE survey_upload_refusals (
  upload_id  text NOT NULL REFERENCES survey_uploads (id) ON DELETE CASCADE,
  row_number integer NOT NULL,
  plot_id    text,
  field      text NOT NULL,
  code       text NOT NULL,
  reason     text NOT NULL,
  PRIMARY KEY (upload_id, row_number)
);

-- Valid rows waiting for their upload's end, already matched and predicted as survey_plots keeps
-- them. Unlogged: after a crash the table is emptied, which is what a stopped upload deserves.
CREATE UNLOGGED TABLE survey_upload_rows (
  upload_id         text NOT NULL,
  row_number        integer NOT NULL,
  plot_id           text NOT NULL,
  surveyed_on       date NOT NULL,
  planted_on        date NOT NULL,
  latitude          double precision NOT NULL,
  longitude         double precision NOT NULL,
  species_code      text NOT NULL,
  planting_method   text NOT NULL,
  planted           integer NOT NULL,
  alive             integer NOT NULL,
  plot_area_m2      double precision,
  protocol          text,
  site_id           integer NOT NULL,
  matched_latitude  double precision NOT NULL,
  matched_longitude double precision NOT NULL,
  match_distance_km double precision NOT NULL,
  age_years         double precision NOT NULL,
  predicted         double precision NOT NULL,
  model_version     text NOT NULL,
  PRIMARY KEY (upload_id, row_number)
);
