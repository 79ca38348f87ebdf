-- Client addresses of self-service keys are kept as HMAC-SHA-256 under the server's secret
-- (ADDRESS_HASH_KEY) from now on. The plain SHA-256 values written before can be reversed by hashing
-- every IPv4 address, and cannot be told apart from the keyed ones, so every value written so far is
-- cleared. The keys stay; only the hourly issuance windows forget the addresses they were counting.
UPDATE api_keys SET issued_from = NULL WHERE issued_from IS NOT NULL;

COMMENT ON COLUMN api_keys.issued_from IS
  'Self-service keys: HMAC-SHA-256 of the client address under ADDRESS_HASH_KEY (hex), never the address';
