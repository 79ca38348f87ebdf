-- Survey upload tickets: what a GraphQL client holds to stream a file to
-- POST /v1/surveys/uploads/tickets/{ticket}. A ticket is a credential: only its SHA-256 is kept; it
-- works once, for the key that asked for it, until it expires (and while that key still works).
CREATE TABLE survey_upload_tickets (
  token_hash   text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  account_id   text NOT NULL,
  key_id       text NOT NULL REFERENCES api_keys (id),
  skip_invalid boolean NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX survey_upload_tickets_expiry ON survey_upload_tickets (expires_at);
