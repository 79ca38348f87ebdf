-- Calibrated model versions: what POST /v1/models/calibrations fitted on an account's surveys. A
-- version is its fit's JSON, named by the SHA-256 of that text (`<parent>+cal.<8 hex>`), and never
-- changes: an answer pinned to it is the same whenever it is asked for.
CREATE TABLE model_versions (
  account_id text NOT NULL,
  version    text NOT NULL CHECK (version ~ '^[^+[:space:]]+\+cal\.[0-9a-f]{8}$'),
  parent     text NOT NULL,
  fit        text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, version)
);

CREATE FUNCTION model_versions_never_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'model version % never changes', OLD.version;
END $$;
CREATE TRIGGER model_versions_never_change BEFORE UPDATE ON model_versions
  FOR EACH ROW EXECUTE FUNCTION model_versions_never_change();

-- The fits asked for: each one polled as a status resource until it succeeds (naming its version) or
-- fails. At most one runs per account; one whose process stopped (no heartbeat for a minute) is
-- counted as failed when the next one starts.
CREATE TABLE model_calibrations (
  id           uuid PRIMARY KEY,
  account_id   text NOT NULL,
  status       text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  filter       jsonb NOT NULL,
  stages_done  integer NOT NULL DEFAULT 0 CHECK (stages_done >= 0),
  stages       integer NOT NULL CHECK (stages > 0),
  plots        integer,
  version      text,
  error        jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  CHECK ((status = 'succeeded') = (version IS NOT NULL)),
  CHECK ((status = 'failed') = (error IS NOT NULL)),
  CHECK ((status = 'running') = (finished_at IS NULL))
);
CREATE UNIQUE INDEX model_calibrations_one_running ON model_calibrations (account_id)
  WHERE status = 'running';
CREATE INDEX model_calibrations_by_account ON model_calibrations (account_id, created_at);

-- The version an account's answers use when a request names none (PUT /v1/models/default); no row:
-- the current base version.
CREATE TABLE model_defaults (
  account_id text PRIMARY KEY,
  version    text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
