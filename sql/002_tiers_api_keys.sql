-- Access tiers and API keys. Keys are stored only as SHA-256 hashes.
CREATE TABLE tiers (
  name                text PRIMARY KEY,
  daily_request_limit integer CHECK (daily_request_limit > 0), -- NULL = unlimited
  batch_size_limit    integer NOT NULL CHECK (batch_size_limit > 0)
);

INSERT INTO tiers (name, daily_request_limit, batch_size_limit) VALUES
  ('spore', 100, 10),
  ('mycel', 10000, 100),
  ('hypha', NULL, 500)
ON CONFLICT (name) DO NOTHING;

CREATE TABLE api_keys (
  id          text PRIMARY KEY CHECK (id ~ '^key_[0-9a-f]{16}$'),
  key_hash    text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  -- Last four characters, so people can tell their keys apart in listings.
  key_hint    text NOT NULL CHECK (key_hint ~ '^[0-9a-f]{4}$'),
  tier        text NOT NULL REFERENCES tiers (name),
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'rotated', 'revoked')),
  name        text,
  rotated_to  text REFERENCES api_keys (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX api_keys_tier ON api_keys (tier);
