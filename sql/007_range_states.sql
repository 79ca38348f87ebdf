-- Native ranges by state (species.csv range_states): a zone can reach into a state where a species
-- does not grow (incense-cedar lists zones that reach Washington, but grows in Oregon only), so each
-- site records its state. Both columns are filled by `npm run db:seed`; a site without one is judged
-- by its zone alone, as before.
ALTER TABLE species ADD COLUMN range_states text[] CHECK (range_states <@ ARRAY['OR', 'WA']);
ALTER TABLE sites ADD COLUMN state text CHECK (state IN ('OR', 'WA'));
