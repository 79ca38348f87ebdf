#!/usr/bin/env node
// The reference server of `npm run bench` (bench/reference/): the leanest sensible implementation of the
// service's hot path, the reference the real service is compared against.
//
//   GET  /hello              fixed tiny JSON (Node's HTTP ceiling on this machine)
//   POST /v1/predict         {latitude, longitude, species_code, planting_method, horizons?}
//   POST /v1/predict/batch   {sites: [{latitude, longitude, species_code, planting_method}] (<=500), horizons?}
//   header X-API-Key on both POSTs.
//
// Per request: sha256(key) -> key row (Map cache, PG on miss), one Redis round trip
// (Lua: INCRBY + EXPIREAT next midnight UTC on first use) with tier-limit check, one
// index-backed KNN query (GiST on ll_to_earth(lat,lon), ORDER BY <-> LIMIT 1, radius check),
// a fixed logistic model per horizon, JSON.stringify (~1.5 KB out).
//
// env:
//   PORT (3000)  DATABASE_URL (postgres://postgres@127.0.0.1:5432/bench_reference)
//   REDIS_URL (redis://127.0.0.1:6379/14)  PG_POOL (4)  RADIUS_KM (25)
//   REDIS_AUTOPIPELINE (1)  ioredis enableAutoPipelining
//   WORKERS (1)             >1: node:cluster with that many processes
//   KNN (spec)              spec:   ORDER BY ll_to_earth(lat,lon) <-> ll_to_earth($1,$2)  (the service's query)
//                           stored: ORDER BY earth_pt <-> cube(array[x,y,z]) on a stored cube column,
//                                   no ll_to_earth() call at query time (PG 15 re-parses that SQL function on every call)
//   Breakdown switches (to see where the time goes; never for comparisons):
//   NO_REDIS=1  rate limit counted in-process instead of Redis
//   NO_PG=1     no PostgreSQL at all: built-in key table, nearest site = fixed synthetic row
import http from 'node:http';
import cluster from 'node:cluster';
import { createHash } from 'node:crypto';

const PORT = Number(process.env.PORT || 3000);
const WORKERS = Number(process.env.WORKERS || 1);
const NO_PG = process.env.NO_PG === '1';
const NO_REDIS = process.env.NO_REDIS === '1';
const RADIUS_M = Number(process.env.RADIUS_KM || 25) * 1000;
const KNN = process.env.KNN || 'spec';
const MAX_BATCH = 500;

if (WORKERS > 1 && cluster.isPrimary) {
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  const stop = () => { for (const w of Object.values(cluster.workers)) w.kill('SIGTERM'); process.exit(0); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  await start();
}

async function start() {
  // ---------------------------------------------------------------- dependencies
  let sql = null;
  if (!NO_PG) {
    const { default: postgres } = await import('postgres');
    sql = postgres(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/bench_reference', {
      max: Number(process.env.PG_POOL || 4),
      idle_timeout: 0,
      prepare: true,
      onnotice: () => {},
    });
  }
  let redis = null;
  if (!NO_REDIS) {
    const { default: Redis } = await import('ioredis');
    redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379/14', {
      enableAutoPipelining: process.env.REDIS_AUTOPIPELINE !== '0',
      maxRetriesPerRequest: 1,
    });
    // atomic per-key daily counter: one round trip (EVALSHA), expiry set when the day's key is born
    redis.defineCommand('dailyIncr', {
      numberOfKeys: 1,
      lua: "local c = redis.call('INCRBY', KEYS[1], ARGV[1])\n" +
           "if c == tonumber(ARGV[1]) then redis.call('EXPIREAT', KEYS[1], ARGV[2]) end\n" +
           'return c',
    });
  }

  // ---------------------------------------------------------------- API keys (cached)
  const KEY_TTL_MS = 60_000;
  const keyCache = new Map(); // sha256 hex -> { row, until }
  const BUILTIN_KEYS = new Map([ // NO_PG mode only; mirrors bench/reference/seed.mjs
    ['bench-unlimited-key', { id: 1, tier: 'bench', daily_limit: 2000000000, active: true }],
    ['bench-pro-key', { id: 2, tier: 'pro', daily_limit: 100000, active: true }],
    ['bench-free-key', { id: 3, tier: 'free', daily_limit: 1000, active: true }],
  ].map(([k, v]) => [sha256(k), v]));

  function sha256(s) { return createHash('sha256').update(s).digest('hex'); }

  async function lookupKey(raw) {
    const h = sha256(raw);
    const now = Date.now();
    const c = keyCache.get(h);
    if (c !== undefined && c.until > now) return c.row;
    let row = null;
    if (NO_PG) row = BUILTIN_KEYS.get(h) || null;
    else {
      const rows = await sql`SELECT id, tier, daily_limit, active FROM api_keys WHERE key_hash = ${h}`;
      row = rows.length ? rows[0] : null;
    }
    keyCache.set(h, { row, until: now + KEY_TTL_MS }); // negative results cached too
    return row;
  }

  // ---------------------------------------------------------------- daily counter
  let dayKey = '', resetAtSec = 0, resetAtIso = '';
  function rollDay(now) {
    const d = new Date(now);
    dayKey = d.toISOString().slice(0, 10).replace(/-/g, '');
    const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    resetAtSec = next / 1000;
    resetAtIso = new Date(next).toISOString().replace('.000Z', 'Z');
  }
  rollDay(Date.now());
  const localCounts = new Map(); // NO_REDIS mode

  async function countUse(keyRow, n) {
    const now = Date.now();
    if (now >= resetAtSec * 1000) { rollDay(now); localCounts.clear(); }
    const k = 'rl:' + keyRow.id + ':' + dayKey;
    if (NO_REDIS) {
      const c = (localCounts.get(k) || 0) + n;
      localCounts.set(k, c);
      return c;
    }
    return redis.dailyIncr(k, n, resetAtSec);
  }

  // ---------------------------------------------------------------- nearest site (KNN)
  const R_EARTH = 6378168; // earthdistance's earth()
  const SITE_COLS = ['elevation_m', 'slope_deg', 'aspect_deg', 'annual_precip_mm', 'mean_temp_c',
    'frost_free_days', 'soil_awc_cm', 'soil_ph', 'site_index_m', 'canopy_cover_pct'];

  async function nearestSite(lat, lon) {
    if (NO_PG) {
      return { id: 1, lat: lat + 0.01, lon: lon - 0.01, dist_m: 1234.5, elevation_m: 812.4, slope_deg: 12.5,
        aspect_deg: 181, annual_precip_mm: 1450, mean_temp_c: 8.4, frost_free_days: 160, soil_awc_cm: 12.1,
        soil_ph: 6.2, site_index_m: 33.5, canopy_cover_pct: 48.2 };
    }
    const rows = KNN === 'stored' ? await sql`
      SELECT * FROM (
        SELECT id, lat, lon, elevation_m, slope_deg, aspect_deg, annual_precip_mm, mean_temp_c,
               frost_free_days, soil_awc_cm, soil_ph, site_index_m, canopy_cover_pct,
               earth_pt <-> cube(array[${R_EARTH} * cosd(${lat}::float8) * cosd(${lon}::float8),
                                       ${R_EARTH} * cosd(${lat}::float8) * sind(${lon}::float8),
                                       ${R_EARTH} * sind(${lat}::float8)]) AS dist_m
        FROM sites
        ORDER BY 14
        LIMIT 1
      ) s WHERE dist_m <= ${RADIUS_M}` : await sql`
      SELECT * FROM (
        SELECT id, lat, lon, elevation_m, slope_deg, aspect_deg, annual_precip_mm, mean_temp_c,
               frost_free_days, soil_awc_cm, soil_ph, site_index_m, canopy_cover_pct,
               ll_to_earth(lat, lon) <-> ll_to_earth(${lat}, ${lon}) AS dist_m
        FROM sites
        ORDER BY ll_to_earth(lat, lon) <-> ll_to_earth(${lat}, ${lon})
        LIMIT 1
      ) s WHERE dist_m <= ${RADIUS_M}`;
    return rows.length ? rows[0] : null;
  }

  async function nearestSites(lats, lons) {
    if (NO_PG) return lats.map((lat, i) => ({ i: i + 1, ...FIXED_SITE(lat, lons[i]) }));
    // one round trip for the whole batch: unnest + LATERAL KNN, LEFT JOIN keeps out-of-radius points
    const latArr = '{' + lats.join(',') + '}', lonArr = '{' + lons.join(',') + '}';
    if (KNN === 'stored') {
      return sql`
        SELECT q.i, s.*
        FROM unnest(${latArr}::float8[], ${lonArr}::float8[]) WITH ORDINALITY AS q(lat, lon, i)
        LEFT JOIN LATERAL (
          SELECT id, lat, lon, elevation_m, slope_deg, aspect_deg, annual_precip_mm, mean_temp_c,
                 frost_free_days, soil_awc_cm, soil_ph, site_index_m, canopy_cover_pct,
                 earth_pt <-> cube(array[${R_EARTH} * cosd(q.lat) * cosd(q.lon),
                                         ${R_EARTH} * cosd(q.lat) * sind(q.lon),
                                         ${R_EARTH} * sind(q.lat)]) AS dist_m
          FROM sites
          ORDER BY 14
          LIMIT 1
        ) s ON s.dist_m <= ${RADIUS_M}
        ORDER BY q.i`;
    }
    return sql`
      SELECT q.i, s.*
      FROM unnest(${latArr}::float8[], ${lonArr}::float8[]) WITH ORDINALITY AS q(lat, lon, i)
      LEFT JOIN LATERAL (
        SELECT id, lat, lon, elevation_m, slope_deg, aspect_deg, annual_precip_mm, mean_temp_c,
               frost_free_days, soil_awc_cm, soil_ph, site_index_m, canopy_cover_pct,
               ll_to_earth(sites.lat, sites.lon) <-> ll_to_earth(q.lat, q.lon) AS dist_m
        FROM sites
        ORDER BY ll_to_earth(sites.lat, sites.lon) <-> ll_to_earth(q.lat, q.lon)
        LIMIT 1
      ) s ON s.dist_m <= ${RADIUS_M}
      ORDER BY q.i`;
  }
  function FIXED_SITE(lat, lon) {
    return { id: 1, lat: lat + 0.01, lon: lon - 0.01, dist_m: 1234.5, elevation_m: 812.4, slope_deg: 12.5,
      aspect_deg: 181, annual_precip_mm: 1450, mean_temp_c: 8.4, frost_free_days: 160, soil_awc_cm: 12.1,
      soil_ph: 6.2, site_index_m: 33.5, canopy_cover_pct: 48.2 };
  }

  // ---------------------------------------------------------------- survival model
  // logit(S(h)) = a_species + b_method + sum_i w_i * z_i - k * ln(h);  z_i = (x_i - mean_i) / sd_i
  const MEAN = [1500, 22.5, 180, 1850, 8, 160, 13.5, 6.25, 32.5, 50];
  const SD = [866, 13, 104, 953, 3.5, 58, 6.6, 1.0, 10.1, 28.9];
  const W = [-0.18, -0.07, 0.03, 0.22, -0.11, 0.14, 0.19, 0.05, 0.16, -0.06];
  // The API's 20 species and 2 methods (intercepts are arbitrary: this server prices the work, not the answer).
  const SPECIES = { PSME: [2.1, 'Douglas-fir'], TSHE: [1.6, 'western hemlock'], THPL: [1.7, 'western redcedar'],
    PIPO: [1.8, 'ponderosa pine'], PICO: [1.9, 'lodgepole pine'], PISI: [1.5, 'Sitka spruce'], ABGR: [1.5, 'grand fir'],
    ABAM: [1.3, 'Pacific silver fir'], ABPR: [1.3, 'noble fir'], ABLA: [1.2, 'subalpine fir'], LAOC: [1.6, 'western larch'],
    PIEN: [1.4, 'Engelmann spruce'], PIMO: [1.2, 'western white pine'], CADE: [1.7, 'incense-cedar'],
    TSME: [1.1, 'mountain hemlock'], CHNO: [1.2, 'Alaska yellow-cedar'], ALRU: [1.4, 'red alder'],
    ACMA: [1.3, 'bigleaf maple'], QUGA: [1.6, 'Oregon white oak'], POTR: [1.2, 'quaking aspen'] };
  const METHODS = { manual: 0, drone_seeded: -1.6 };
  const FACTOR_NAMES = ['Elevation', 'Slope', 'Aspect', 'Annual precipitation', 'Mean temperature', 'Frost-free days',
    'Soil water capacity', 'Soil pH', 'Site index', 'Competing vegetation'];
  const K_TIME = 0.55;
  const DEFAULT_HORIZONS = [1, 3, 5];
  // The codename is kept as first measured: the answer's size is part of the work compared.
  const MODEL = { version: '0.2', codename: 'floor', series: 'mycel' };
  const sigm = (x) => 1 / (1 + Math.exp(-x));

  // Spec-shaped predictions: per horizon, survival probability and the top 3 factors by magnitude.
  function predict(site, species, method, horizons) {
    const effects = new Array(10);
    let lin = SPECIES[species][0] + METHODS[method];
    for (let i = 0; i < 10; i++) {
      const e = W[i] * (site[SITE_COLS[i]] - MEAN[i]) / SD[i];
      effects[i] = e;
      lin += e;
    }
    const preds = new Array(horizons.length);
    for (let j = 0; j < horizons.length; j++) {
      const h = horizons[j];
      const grow = 1 + 0.1 * Math.log(h);
      const ranked = effects.map((e, i) => [i, e * grow]).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
      preds[j] = { horizon_years: h, survival_probability: sigm(lin * grow - K_TIME * Math.log(h)),
        risk_factors: ranked.slice(0, 3).map(([i, e]) => ({ factor: FACTOR_NAMES[i], impact: e < 0 ? 'negative' : 'positive', magnitude: Math.abs(e) })) };
    }
    return preds;
  }

  function predictionBody(p, site, horizons) {
    return {
      site: { latitude: p.latitude, longitude: p.longitude, matched_latitude: site.lat, matched_longitude: site.lon,
        match_distance_km: site.dist_m / 1000, region: 'pnw' },
      species_code: p.species_code, species_common_name: SPECIES[p.species_code][1], planting_method: p.planting_method,
      predictions: predict(site, p.species_code, p.planting_method, horizons),
      model: MODEL, generated_at: new Date().toISOString(),
    };
  }

  // ---------------------------------------------------------------- validation
  function badPoint(p) {
    if (p === null || typeof p !== 'object') return 'body must be an object';
    const { latitude: la, longitude: lo } = p;
    if (typeof la !== 'number' || !(la >= -90 && la <= 90)) return 'latitude must be a number in [-90, 90]';
    if (typeof lo !== 'number' || !(lo >= -180 && lo <= 180)) return 'longitude must be a number in [-180, 180]';
    if (!Object.hasOwn(SPECIES, p.species_code)) return 'unknown species_code';
    if (!Object.hasOwn(METHODS, p.planting_method)) return 'unknown planting_method';
    return null;
  }
  function parseHorizons(h) {
    if (h === undefined) return DEFAULT_HORIZONS;
    if (!Array.isArray(h) || h.length === 0 || h.length > 3) return null;
    for (const x of h) if (x !== 1 && x !== 3 && x !== 5) return null;
    return [...new Set(h)].sort((a, b) => a - b);
  }

  // ---------------------------------------------------------------- HTTP
  const HELLO = JSON.stringify({ hello: 'world', service: 'reference' });
  const JSON_HDR = { 'content-type': 'application/json' };

  function send(res, status, obj) {
    const s = typeof obj === 'string' ? obj : JSON.stringify(obj);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
    res.end(s);
  }
  function fail(res, status, code, message, extra) {
    send(res, status, { error: { code, message, ...extra } });
  }

  function readJson(req, limit) {
    return new Promise((resolve, reject) => {
      const chunks = [];
      let size = 0;
      req.on('data', (c) => {
        size += c.length;
        if (size > limit) { reject(Object.assign(new Error('body too large'), { status: 413 })); req.destroy(); return; }
        chunks.push(c);
      });
      req.on('end', () => {
        try { resolve(JSON.parse(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))); }
        catch { reject(Object.assign(new Error('invalid JSON'), { status: 400 })); }
      });
      req.on('error', reject);
    });
  }

  async function authenticate(req, res) {
    const raw = req.headers['x-api-key'];
    if (!raw) { fail(res, 401, 'missing_api_key', 'X-API-Key header required'); return null; }
    const key = await lookupKey(raw);
    if (!key || !key.active) { fail(res, 401, 'invalid_api_key', 'unknown or revoked API key'); return null; }
    return key;
  }

  async function count(key, res, n) {
    const used = await countUse(key, n);
    if (used > key.daily_limit) {
      res.setHeader('retry-after', String(Math.max(1, Math.ceil(resetAtSec - Date.now() / 1000))));
      fail(res, 429, 'daily_limit_exceeded', 'daily request limit reached', { limit: key.daily_limit, resets_at: resetAtIso });
      return null;
    }
    return { tier: key.tier, used_today: used, daily_limit: key.daily_limit, resets_at: resetAtIso };
  }

  async function handlePredict(req, res) {
    const key = await authenticate(req, res);
    if (!key) return;
    const body = await readJson(req, 16 * 1024);
    const err = badPoint(body);
    if (err) return fail(res, 400, 'invalid_request', err);
    const horizons = parseHorizons(body.horizons);
    if (!horizons) return fail(res, 400, 'invalid_request', 'horizons must be a subset of [1, 3, 5]');
    const usage = await count(key, res, 1);
    if (!usage) return;
    const site = await nearestSite(body.latitude, body.longitude);
    if (!site) return fail(res, 422, 'no_nearby_data', `no site within ${RADIUS_M / 1000} km`);
    send(res, 200, predictionBody(body, site, horizons));
  }

  async function handleBatch(req, res) {
    const key = await authenticate(req, res);
    if (!key) return;
    const body = await readJson(req, 1024 * 1024);
    const list = body && body.sites;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH) {
      return fail(res, 400, 'invalid_request', `sites must be an array of 1-${MAX_BATCH} points`);
    }
    const horizons = parseHorizons(body.horizons);
    if (!horizons) return fail(res, 400, 'invalid_request', 'horizons must be a subset of [1, 3, 5]');
    const lats = new Array(list.length), lons = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const err = badPoint(list[i]);
      if (err) return fail(res, 400, 'invalid_request', `sites[${i}]: ${err}`);
      lats[i] = list[i].latitude; lons[i] = list[i].longitude;
    }
    const usage = await count(key, res, 1); // a batch counts as one request
    if (!usage) return;
    const rows = await nearestSites(lats, lons);
    const results = new Array(list.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i], p = list[i];
      if (row.id === null || row.id === undefined) {
        results[i] = { index: i, error: { code: 'no_nearby_data', message: `no site within ${RADIUS_M / 1000} km` } };
        continue;
      }
      results[i] = { index: i, prediction: predictionBody(p, row, parseHorizons(p.horizons) || horizons) };
    }
    send(res, 200, { results });
  }

  const server = http.createServer((req, res) => {
    const url = req.url;
    let p;
    if (req.method === 'GET' && url === '/hello') {
      res.writeHead(200, JSON_HDR);
      res.end(HELLO);
      return;
    } else if (req.method === 'POST' && url === '/v1/predict') p = handlePredict(req, res);
    else if (req.method === 'POST' && url === '/v1/predict/batch') p = handleBatch(req, res);
    else return fail(res, 404, 'not_found', 'no such route');
    p.catch((e) => {
      if (res.headersSent) { res.destroy(); return; }
      if (e.status) return fail(res, e.status, e.status === 413 ? 'body_too_large' : 'invalid_json', e.message);
      console.error(e);
      fail(res, 500, 'internal', 'internal error');
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(PORT, '127.0.0.1', () => {
    console.error(`reference server pid=${process.pid} listening on 127.0.0.1:${PORT}` +
      ` KNN=${KNN} NO_PG=${NO_PG ? 1 : 0} NO_REDIS=${NO_REDIS ? 1 : 0} PG_POOL=${process.env.PG_POOL || 4}`);
  });
  const shutdown = async () => {
    server.close();
    await Promise.allSettled([sql && sql.end({ timeout: 1 }), redis && redis.quit()]);
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
