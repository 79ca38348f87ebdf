-- Every change of a key's standing (status, expiry, tier) is announced to the servers on the channel
-- api_key_changes, with the key's id as payload. NOTIFY is sent in the changing transaction and
-- delivered at its commit, so a server never hears of a change that did not happen, and every change
-- is announced whoever made it (the API, the keys CLI, an operator's SQL).
CREATE FUNCTION announce_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changes', OLD.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_key_changes_announced
  AFTER UPDATE OF status, expires_at, tier ON api_keys
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
        OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
        OR OLD.tier IS DISTINCT FROM NEW.tier)
  EXECUTE FUNCTION announce_api_key_change();

CREATE TRIGGER api_key_deletions_announced
  AFTER DELETE ON api_keys
  FOR EACH ROW
  EXECUTE FUNCTION announce_api_key_change();
