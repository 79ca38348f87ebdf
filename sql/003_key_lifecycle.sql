-- Key lifecycle: self-service spore keys, expiry and rotation grace, last use, daily usage history.
ALTER TABLE api_keys
  -- Contact address of a self-service key, lower-cased; never logged.
  ADD COLUMN email        text CHECK (email = lower(email) AND length(email) <= 254),
  -- NULL = never. A rotated key keeps working until this moment (its grace period).
  ADD COLUMN expires_at   timestamptz,
  -- Written at most once a minute per key, by the usage flush.
  ADD COLUMN last_used_at timestamptz,
  -- The key's account: the id of the first key of its rotation chain. The daily quota counter and the
  -- usage history belong to the account, so rolling a key neither resets nor splits them.
  ADD COLUMN account_id   text,
  -- Self-service keys: SHA-256 of the client address that asked (issuance limits), never the address.
  ADD COLUMN issued_from  text CHECK (issued_from ~ '^[0-9a-f]{64}$');

UPDATE api_keys SET account_id = id WHERE account_id IS NULL;
ALTER TABLE api_keys ALTER COLUMN account_id SET NOT NULL;

-- One live (active or deactivated) key per email address; rolled and revoked keys do not count.
CREATE UNIQUE INDEX api_keys_one_live_key_per_email ON api_keys (email)
  WHERE email IS NOT NULL AND status IN ('active', 'inactive');
CREATE INDEX api_keys_self_service_recent ON api_keys (created_at) WHERE issued_from IS NOT NULL;

-- Requests per account and UTC day, flushed from each server's memory about once a minute.
CREATE TABLE key_usage_daily (
  account_id text   NOT NULL,
  day        date   NOT NULL,
  requests   bigint NOT NULL CHECK (requests >= 0),
  PRIMARY KEY (account_id, day)
);
