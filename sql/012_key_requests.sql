-- Self-service keys by email. POST /keys records a request here and answers at once; a mailer then
-- sends the address its new key, or (when it already holds a live key) a notice with a link to roll
-- it. A key counts as the address's only once the mail server has accepted its message: until then
-- it exists only in the message being sent, and api_keys has no row for it.
CREATE TABLE key_requests (
  id              bigserial PRIMARY KEY,
  -- issue: POST /keys; roll: a roll link confirmed (POST /keys/roll).
  kind            text NOT NULL CHECK (kind IN ('issue', 'roll')),
  -- Lower-cased; never logged. Removed with the row a day after the request is finished.
  email           text NOT NULL CHECK (email = lower(email) AND length(email) <= 254),
  name            text CHECK (length(name) <= 100),
  -- HMAC-SHA-256 of the client address that asked, under ADDRESS_HASH_KEY; never the address.
  issued_from     text NOT NULL CHECK (issued_from ~ '^[0-9a-f]{64}$'),
  -- roll: the key the link rolls.
  rolls_key_id    text REFERENCES api_keys (id),
  state           text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'dropped', 'failed')),
  -- What the mailer made of it: a key, a notice to an address that holds one, or nothing (dropped).
  outcome         text CHECK (outcome IN ('key', 'notice', 'rolled_key', 'none')),
  attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A mailer has it until then; another one may take it up after (a crashed mailer's request).
  leased_until    timestamptz,
  -- The id of the key being mailed, written into api_keys once the message is accepted; a report
  -- from a mailer whose lease ran out names another id and is ignored.
  new_key_id      text CHECK (new_key_id ~ '^key_[0-9a-f]{16}$'),
  last_error      text CHECK (length(last_error) <= 500),
  created_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz
);

CREATE INDEX key_requests_due ON key_requests (next_attempt_at) WHERE state = 'queued';
CREATE INDEX key_requests_recent ON key_requests (created_at);
CREATE INDEX key_requests_by_email ON key_requests (email) WHERE state = 'queued';

-- Links that roll a key, mailed to the key's address; single use, for an hour. Kept as SHA-256 hashes.
CREATE TABLE key_roll_links (
  token_hash   text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  key_id       text NOT NULL REFERENCES api_keys (id),
  email        text NOT NULL CHECK (email = lower(email) AND length(email) <= 254),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX key_roll_links_expiry ON key_roll_links (expires_at);
