-- A token that changes with every change to the sites table. A server keeps data derived from every
-- site (the survival map) in memory and reads this one row per request to tell when to recompute, so a
-- reseed (`npm run db:seed`) from another process reaches running servers at their next request. A
-- random uuid rather than a counter: a database rebuilt from scratch never repeats an old token.
CREATE TABLE site_revision (
  id         integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  revision   uuid NOT NULL DEFAULT gen_random_uuid(),
  changed_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO site_revision (id) VALUES (1);

CREATE FUNCTION bump_site_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE site_revision SET revision = gen_random_uuid(), changed_at = now() WHERE id = 1;
  RETURN NULL;
END
$$;

-- Statement-level: one bump per statement however many rows it touches (TRUNCATE included).
CREATE TRIGGER sites_bump_revision
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sites
  FOR EACH STATEMENT EXECUTE FUNCTION bump_site_revision();
