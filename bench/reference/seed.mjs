#!/usr/bin/env node
// Seeds the database of the reference server (bench/reference/server.mjs); bench_reference by default.
//   node bench/reference/seed.mjs
// env: PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/test) - any db on the server, used
//        to CREATE DATABASE if missing
//      DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench_reference)
//      SITES (default 18000)
// Idempotent: drops and recreates the tables. Deterministic: setseed() before random().
import postgres from 'postgres';

const ADMIN = process.env.PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/test';
const DB_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench_reference';
const SITES = Number(process.env.SITES || 18000);
const dbName = new URL(DB_URL).pathname.slice(1);

const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
const [{ exists }] = await admin`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ${dbName}) AS exists`;
if (!exists) {
  await admin.unsafe(`CREATE DATABASE "${dbName}"`);
  console.error(`created database ${dbName}`);
}
await admin.end();

const sql = postgres(DB_URL, { max: 1, onnotice: () => {} });
const t0 = Date.now();
await sql.unsafe(`
  CREATE EXTENSION IF NOT EXISTS cube;
  CREATE EXTENSION IF NOT EXISTS earthdistance;
  DROP TABLE IF EXISTS sites;
  DROP TABLE IF EXISTS api_keys;

  CREATE TABLE sites (
    id                integer PRIMARY KEY,
    lat               double precision NOT NULL,
    lon               double precision NOT NULL,
    elevation_m       double precision NOT NULL,
    slope_deg         double precision NOT NULL,
    aspect_deg        double precision NOT NULL,
    annual_precip_mm  double precision NOT NULL,
    mean_temp_c       double precision NOT NULL,
    frost_free_days   double precision NOT NULL,
    soil_awc_cm       double precision NOT NULL,
    soil_ph           double precision NOT NULL,
    site_index_m      double precision NOT NULL,
    canopy_cover_pct  double precision NOT NULL
  );

  SELECT setseed(0.42);
  -- random points in a rough Oregon+Washington box: lat 42..49, lon -124.5..-116.5
  INSERT INTO sites
  SELECT g,
         round((42 + 7 * random())::numeric, 5)::float8,
         round((-124.5 + 8 * random())::numeric, 5)::float8,
         round((3000 * random())::numeric, 1)::float8,
         round((45 * random())::numeric, 1)::float8,
         round((360 * random())::numeric, 1)::float8,
         round((200 + 3300 * random())::numeric, 0)::float8,
         round((2 + 12 * random())::numeric, 2)::float8,
         round((60 + 200 * random())::numeric, 0)::float8,
         round((2 + 23 * random())::numeric, 2)::float8,
         round((4.5 + 3.5 * random())::numeric, 2)::float8,
         round((15 + 35 * random())::numeric, 1)::float8,
         round((100 * random())::numeric, 1)::float8
  FROM generate_series(1, ${SITES}) AS g;

  -- the KNN index: GiST on the earth (cube) point; ORDER BY ... <-> ... LIMIT k uses it
  CREATE INDEX sites_earth_gist ON sites USING gist (ll_to_earth(lat, lon));

  -- Alternative layout, only for the KNN=stored variant (bench/reference/server.mjs):
  -- the same point stored as a cube column with its own GiST index, so a query needs no call of
  -- the SQL function ll_to_earth() (PG 15 cannot inline it and re-parses it on every execution).
  ALTER TABLE sites ADD COLUMN earth_pt cube GENERATED ALWAYS AS (ll_to_earth(lat, lon)::cube) STORED;
  CREATE INDEX sites_earth_pt_gist ON sites USING gist (earth_pt);

  CREATE TABLE api_keys (
    id          serial PRIMARY KEY,
    key_hash    text NOT NULL UNIQUE,          -- hex sha256 of the raw key
    name        text NOT NULL,
    tier        text NOT NULL,
    daily_limit integer NOT NULL,
    active      boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now()
  );
  INSERT INTO api_keys (key_hash, name, tier, daily_limit) VALUES
    (encode(sha256('bench-unlimited-key'::bytea), 'hex'), 'bench (no practical limit)', 'bench', 2000000000),
    (encode(sha256('bench-pro-key'::bytea), 'hex'),       'bench pro',  'pro',  100000),
    (encode(sha256('bench-free-key'::bytea), 'hex'),      'bench free', 'free', 1000);
  INSERT INTO api_keys (key_hash, name, tier, daily_limit)
  SELECT encode(sha256(('filler-key-' || g)::bytea), 'hex'), 'filler ' || g, 'free', 1000
  FROM generate_series(1, 2000) AS g;
  INSERT INTO api_keys (key_hash, name, tier, daily_limit, active) VALUES
    (encode(sha256('bench-revoked-key'::bytea), 'hex'), 'bench revoked', 'free', 1000, false);
`);
// VACUUM can't run inside the implicit transaction of a multi-statement simple query
await sql.unsafe('VACUUM ANALYZE sites');
await sql.unsafe('VACUUM ANALYZE api_keys');
const [{ n }] = await sql`SELECT count(*)::int AS n FROM sites`;
const [{ k }] = await sql`SELECT count(*)::int AS k FROM api_keys`;
const [{ size }] = await sql`SELECT pg_size_pretty(pg_relation_size('sites_earth_gist')) AS size`;
const [{ tsize }] = await sql`SELECT pg_size_pretty(pg_total_relation_size('sites')) AS tsize`;
console.log(JSON.stringify({ database: dbName, sites: n, api_keys: k, gist_index_size: size, sites_total_size: tsize, seconds: (Date.now() - t0) / 1000 }));
await sql.end();
