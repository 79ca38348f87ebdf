-- The audit log: what changed in each account, who changed it, when, and from which client address
-- (as its keyed hash). Append only: nothing in the service updates or deletes an event, and no event
-- refers to a key by foreign key, so the log outlives the keys it names. Key changes write their
-- event in the transaction of the change itself, so a change is never committed without its event.
CREATE TABLE audit_events (
  -- evt_ + 24 hex characters from a CSPRNG: not a sequence, so ids say nothing about other accounts.
  id            text PRIMARY KEY CHECK (id ~ '^evt_[0-9a-f]{24}$'),
  -- The account (rotation chain) the event belongs to: the account_id of api_keys.
  account_id    text NOT NULL,
  -- Dotted names such as key.rotated; new kinds (survey.created, …) need no migration.
  kind          text NOT NULL CHECK (kind ~ '^[a-z][a-z_]*(\.[a-z][a-z_]*)+$'),
  -- holder: the account's holder over the API; operator: the keys CLI.
  actor         text NOT NULL CHECK (actor IN ('holder', 'operator')),
  -- The key the holder acted with (for key.issued, the key issued); null for an operator.
  key_id        text CHECK (key_id ~ '^key_[0-9a-f]{16}$'),
  -- HMAC-SHA-256 of the client address under the server's ADDRESS_HASH_KEY (hex), never the address;
  -- null for an operator.
  address_hash  text CHECK (address_hash ~ '^[0-9a-f]{64}$'),
  -- A few ids, names and numbers about the change; never a key, a key hash, an email or an address.
  details       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object' AND octet_length(details::text) <= 2048),
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (actor = 'holder' OR (key_id IS NULL AND address_hash IS NULL))
);

-- An account's events, newest first, paged by (created_at, id).
CREATE INDEX audit_events_by_account ON audit_events (account_id, created_at DESC, id DESC);
