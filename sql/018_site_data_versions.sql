-- Site data sets as versions. Each import keeps its rows in a table of its own, named by the version
-- (`sites_<12 hex of the rows' content hash>`), immutable once imported. The active version's table is
-- renamed `sites`, the name every query reads, in the one transaction that activates it: a statement
-- sees one version or the other, never both, and statements running when it happens finish on the
-- version they started with (the rename waits for them). site_revision names the active version.
CREATE TABLE site_data_versions (
  version      text PRIMARY KEY CHECK (version ~ '^sites_[0-9a-f]{12}$'),
  row_count    integer NOT NULL CHECK (row_count >= 0),
  west         double precision,
  south        double precision,
  east         double precision,
  north        double precision,
  -- The file it came from (its name, never its path), or the synthetic generator.
  source       text NOT NULL CHECK (length(source) BETWEEN 1 AND 255),
  -- How many rows took each optional attribute's documented default.
  defaults     jsonb NOT NULL DEFAULT '{}',
  imported_at  timestamptz NOT NULL DEFAULT now(),
  active       boolean NOT NULL DEFAULT false,
  activated_at timestamptz
);
CREATE UNIQUE INDEX site_data_versions_one_active ON site_data_versions (active) WHERE active;

-- Every activation, in order: `rollback` goes back to the one before.
CREATE TABLE site_data_activations (
  seq          bigserial PRIMARY KEY,
  version      text NOT NULL,
  activated_at timestamptz NOT NULL DEFAULT now()
);

-- Imports under way: a staging table each, and a heartbeat. One whose heartbeat is a minute old lost
-- its process (killed mid-import): the next import or list drops its table.
CREATE TABLE site_data_imports (
  staging      text PRIMARY KEY CHECK (staging ~ '^sites_import_[0-9a-f]{16}$'),
  source       text NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE site_revision ADD COLUMN data_version text;
