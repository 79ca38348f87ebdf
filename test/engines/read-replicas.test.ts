import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type PostgresWithReplica,
  startPostgresWithReplica,
  startReplica,
  stopReplica,
} from '../../scripts/engines/postgres-replica.ts'
import { type Database, openDatabase } from '../../src/db/connect.ts'
import { createKey } from '../../src/db/keys.ts'
import { migrate } from '../../src/db/migrate.ts'
import { logReplicaStates, type ReplicaStatus, replicaName } from '../../src/db/read-replicas.ts'
import { activateSiteVersion } from '../../src/db/site-data-versions.ts'
import type { Logger } from '../../src/logging/logger.ts'
import { seedAll } from '../../src/seed/seed-all.ts'
import { batchProblems, predictionProblems, rest } from '../rest/client.ts'
import { recordingLogger } from '../security/support.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { keyIn, mailEnv, startMailCatcher } from '../support/mail-catcher.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { activeVersionName, keepChangedVersion } from '../support/site-versions.ts'
import { FOREST_POINTS, forestGrid, predictBodies, predictBody } from '../support/sites.ts'
import { eventually, sleep } from '../support/waiting.ts'

/**
 * DATABASE_REPLICA_URLS on the real engines (scripts/engines.ts): one PostgreSQL primary and one
 * streaming replica for the whole file, the primary migrated and seeded, the replica receiving it all by
 * streaming. What goes where is proven on the engines themselves: their table statistics, their data
 * (a paused replica does not have what was written since), and the replica's server log.
 */

let pg: PostgresWithReplica
/** Observer connections of this file (not the app's: those are named `survival-api`). */
let primary: postgres.Sql
let replica: postgres.Sql
let siteCount: number

/** A login role of its own for the replica URL, so its name and password can be looked for in answers. */
const READER = 'survival_reader'
const READER_PASSWORD = 's3cret-word'

beforeAll(async () => {
  pg = await startPostgresWithReplica()
  console.log(`PostgreSQL primary + replica started in ${pg.startupMs} ms`)
  const seeding = await openDatabase({ DATABASE_URL: pg.primaryUrl, DB_POOL_MAX: 4 })
  try {
    await migrate(seeding.sql)
    await seedAll(seeding.sql)
    // Trust auth on 127.0.0.1 takes any password: the role is what makes the URL's credentials real.
    await seeding.sql.unsafe(
      `CREATE ROLE ${READER} LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${READER}`,
    )
    siteCount = (await seeding.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sites`)[0]?.n ?? 0
  } finally {
    await seeding.close()
  }
  const observer = { max: 1, onnotice: () => {}, connection: { application_name: 'replica-test' } }
  primary = postgres(pg.primaryUrl, observer)
  replica = postgres(pg.replicaUrl, observer)
  const revision = await siteRevision(primary)
  const replicated = await eventually(
    async () =>
      (await siteRevision(replica)) === revision &&
      (await replica`SELECT 1 FROM pg_roles WHERE rolname = ${READER}`).length === 1,
    15_000,
  )
  if (!replicated) throw new Error('the replica did not receive the seed')
})

afterAll(async () => {
  await primary?.end()
  await replica?.end()
  await pg?.stop()
})

// ---------------------------------------------------------------------------------------------------
// Helpers

async function siteRevision(sql: postgres.Sql): Promise<string> {
  return (await sql<{ r: string }[]>`SELECT revision::text AS r FROM site_revision`)[0]?.r as string
}

/** The replica URL with a user and a password in it. */
function credentialedReplicaUrl(): string {
  const url = new URL(pg.replicaUrl)
  url.username = READER
  url.password = READER_PASSWORD
  return url.toString()
}

interface ReplicaServer {
  db: Database
  server: TestServer
  url: string
  /** A hypha key (unlimited, may run jobs), issued on the primary. */
  key: string
  replica(): ReplicaStatus
  close(): Promise<void>
}

/** The app in this process on a Database opened as serve.ts opens it, with the replicas given. */
async function startReplicaServer(
  replicaUrls: string[],
  settings: {
    maxLagMs: number
    checkMs?: number
    logger?: Logger
    mail?: Record<string, string>
    /** Counted reads are of requests alone: no index in memory polling the revision beside them. */
    siteIndex?: 'memory' | 'off'
  },
): Promise<ReplicaServer> {
  const db = await openDatabase(
    {
      DATABASE_URL: pg.primaryUrl,
      DB_POOL_MAX: 4,
      DATABASE_REPLICA_URLS: replicaUrls,
      REPLICA_MAX_LAG_MS: settings.maxLagMs,
      REPLICA_CHECK_MS: settings.checkMs ?? 100,
    },
    {
      readReplicas: true,
      statementTimeoutMs: 5000,
      ...(settings.logger ? { onReplicaStateChange: logReplicaStates(settings.logger) } : {}),
    },
  )
  const server = await startTestServer({
    database: db,
    quota: 'memory',
    keyCacheMs: 0,
    survivalMapPerMinute: 1000,
    jobChunkRows: 50,
    usageFlushMs: 100,
    logger: settings.logger,
    mail: settings.mail,
    siteIndex: settings.siteIndex ?? 'off',
  })
  const { key } = await createKey(db.sql, { tier: 'hypha', name: 'replica test' })
  return {
    db,
    server,
    url: server.url,
    key,
    replica: () => db.reads.replicas()[0] as ReplicaStatus,
    close: async () => {
      await server.close()
      await db.close()
    },
  }
}

interface SiteScans {
  /** Scans of the `sites` table, sequential and by any index. */
  table: number
  /** Scans of its KNN index (one per nearest-site lookup of a point). */
  knn: number
}

async function siteScans(sql: postgres.Sql): Promise<SiteScans> {
  const [row] = await sql<{ table: number; knn: number }[]>`
    SELECT (coalesce(t.seq_scan, 0) + coalesce(t.idx_scan, 0))::int AS table, i.idx_scan::int AS knn
    FROM pg_stat_user_tables t
    JOIN pg_stat_user_indexes i ON i.relid = t.relid AND i.indexrelname LIKE 'sites_%knn'
    WHERE t.relname = 'sites'`
  return row as SiteScans
}

async function appConnections(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'survival-api'`
  return row?.n ?? 0
}

/**
 * The sites statistics of both servers once every app connection is closed. A backend reports its
 * table statistics at most once a second while busy, and for certain only as it exits: so the servers
 * under test are closed before their scans are counted, and the counts are taken once they stop moving.
 */
async function settledScans(): Promise<{ primary: SiteScans; replica: SiteScans }> {
  const closed = await eventually(
    async () => (await appConnections(primary)) + (await appConnections(replica)) === 0,
    10_000,
  )
  expect(closed, 'app connections still open').toBe(true)
  let last = { primary: await siteScans(primary), replica: await siteScans(replica) }
  for (let round = 0; round < 20; round++) {
    await sleep(150)
    const now = { primary: await siteScans(primary), replica: await siteScans(replica) }
    if (JSON.stringify(now) === JSON.stringify(last)) return now
    last = now
  }
  return last
}

/** A short-lived connection to the primary: its statistics are written when it closes. */
async function onPrimaryBriefly<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(pg.primaryUrl, { max: 1, onnotice: () => {} })
  try {
    return await work(sql)
  } finally {
    await sql.end()
  }
}

/** The replica's server log lines about a statement refused as a write on a standby. */
function readOnlyRefusals(): string[] {
  const log = readFileSync(join(pg.dataDir, 'replica.log'), 'utf8')
  return log.split('\n').filter((line) => /read-only transaction|recovery is in progress/i.test(line))
}

/** One sample of a Prometheus text exposition (labels given must match), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    )
    if (Object.entries(labels).every(([label, value]) => found[label] === value)) return Number(match[3])
  }
  return undefined
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`)
  expect(response.status).toBe(200)
  return response.text()
}

/** A CSV job of `rows` forest points, run to its end; its rows are scored with nearest-site lookups. */
async function runJob(url: string, key: string, rows: number) {
  const csv = [
    'id,latitude,longitude,species_code,planting_method,horizons,notes',
    ...forestGrid(rows).map((p, index) => `r${index},${p.latitude},${p.longitude},PSME,manual,1|5,stand`),
    '',
  ].join('\n')
  const accepted = await rest(url, 'POST', '/v1/jobs', { key, raw: csv, contentType: 'text/csv' })
  expect(accepted.status, accepted.text).toBe(202)
  const id = accepted.body.id as string
  let job: { status: string; rows_done: number; rows_total: number } | undefined
  const done = await eventually(async () => {
    job = (await rest(url, 'GET', `/v1/jobs/${id}`, { key })).body
    return job?.status === 'succeeded' || job?.status === 'failed'
  }, 30_000)
  expect(done, JSON.stringify(job)).toBe(true)
  expect(job).toMatchObject({ status: 'succeeded', rows_total: rows, rows_done: rows })
  const results = await rest(url, 'GET', `/v1/jobs/${id}/results`, { key })
  expect(results.status, results.text).toBe(200)
  expect(results.text.trim().split('\n')).toHaveLength(rows + 1)
  return { id, results: results.text }
}

const MAP = `survivalMap(speciesCode: "PSME", plantingMethod: MANUAL, horizon: 5) {
  siteCount cells { h3Index latitude sites meanSurvival } }`

interface Cell {
  h3Index: string
  latitude: number
  sites: number
  meanSurvival: number
}

async function survivalMap(url: string, key: string): Promise<{ siteCount: number; cells: Cell[] }> {
  const result = await graphql(url, `{ ${MAP} }`, { key })
  expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(200)
  expect(result.body.errors).toBeUndefined()
  return result.body.data.survivalMap
}

/** Mean survival over the cells north of 47.7° (where the site change below makes it harsh). */
function northernMean(cells: Cell[]): number {
  const north = cells.filter((cell) => cell.latitude > 47.7)
  return (
    north.reduce((sum, cell) => sum + cell.meanSurvival * cell.sites, 0) /
    north.reduce((sum, cell) => sum + cell.sites, 0)
  )
}

async function predictOnce(
  url: string,
  key: string,
  point: { latitude: number; longitude: number } = FOREST_POINTS.coastRange,
): Promise<void> {
  const result = await rest(url, 'POST', '/v1/predict', { key, json: predictBody(point) })
  expect(result.status, result.text).toBe(200)
}

// ---------------------------------------------------------------------------------------------------

describe('lag-tolerant reads are served by the replica', () => {
  it('predict, batch, a job, survivalMap and speciesRanking read the sites on the replica, never on the primary', async () => {
    // The seeding just before may not have been replayed yet: a replica behind the primary's site
    // revision is rightly passed over for the site table, which is not what this test is about.
    const replayed = await eventually(
      async () => (await siteRevision(replica)) === (await siteRevision(primary)),
      10_000,
    )
    expect(replayed, 'the replica never replayed the seeded sites').toBe(true)
    const before = await settledScans()
    // Checked once, at start: a background check timing out on a busy machine (500 ms at the usual
    // 100 ms interval) would rightly send a read or two to the primary, which is not this test's subject.
    const running = await startReplicaServer([pg.replicaUrl], { maxLagMs: 60_000, checkMs: 60_000 })
    const { url, key } = running
    let points = 0
    try {
      expect(running.replica()).toMatchObject({ name: replicaName(pg.replicaUrl), state: 'healthy' })

      const one = await rest(url, 'POST', '/v1/predict', { key, json: predictBody() })
      expect(one.status, one.text).toBe(200)
      expect(predictionProblems(one.body, { species_code: 'PSME' })).toEqual([])
      points += 1

      const batch = await rest(url, 'POST', '/v1/predict/batch', { key, json: { sites: predictBodies(20) } })
      expect(batch.status, batch.text).toBe(200)
      expect(batchProblems(batch.body, 20)).toEqual([])
      points += 20

      await runJob(url, key, 120)
      points += 120

      const gql = await graphql(
        url,
        `{ ${MAP}
           speciesRanking(latitude: ${FOREST_POINTS.eastCascades.latitude}, longitude: ${FOREST_POINTS.eastCascades.longitude},
                          plantingMethod: MANUAL, horizon: 5) { ranking { rank } } }`,
        { key },
      )
      expect(gql.status, JSON.stringify(gql.body).slice(0, 500)).toBe(200)
      expect(gql.body.errors).toBeUndefined()
      expect(gql.body.data.survivalMap.siteCount).toBe(siteCount)
      expect(gql.body.data.speciesRanking.ranking).toHaveLength(20)
      points += 1

      // The pool's own account: every lag-tolerant read answered by the replica, none by the primary.
      const status = running.replica()
      expect(status).toMatchObject({ state: 'healthy', retriedOnPrimary: 0 })
      expect(status.reads).toBeGreaterThanOrEqual(5)
      expect(running.db.reads.primaryReads()).toBe(0)
      const metrics = await scrape(url)
      expect(sample(metrics, 'survival_db_reads_total', { server: status.name })).toBe(status.reads)
      expect(sample(metrics, 'survival_db_reads_total', { server: 'primary' })).toBe(0)
      expect(sample(metrics, 'survival_db_replica_retries_total', { replica: status.name })).toBe(0)
    } finally {
      await running.close()
    }

    // The engines' own account: the KNN index was scanned once per point on the replica, and the whole
    // table read there for the map; on the primary, the sites table was not touched at all.
    const after = await settledScans()
    expect(after.replica.knn - before.replica.knn).toBeGreaterThanOrEqual(points)
    expect(after.replica.table - before.replica.table).toBeGreaterThan(after.replica.knn - before.replica.knn)
    expect(after.primary).toEqual(before.primary)
  })
})

describe('the site revision stays correct with lag', () => {
  it('with replay paused, a survival map reflects the primary’s new sites, not the replica’s stale copy', async () => {
    const start = await settledScans()
    const stale = await startReplicaServer([pg.replicaUrl], { maxLagMs: 60_000 })
    let staleOpen = true
    let paused = false
    try {
      const before = await survivalMap(stale.url, stale.key)
      expect(before.siteCount).toBe(siteCount)
      expect(stale.replica().reads).toBe(1)

      await replica`SELECT pg_wal_replay_pause()`
      paused = true
      // Harsh conditions in the north, on the primary only (its trigger bumps site_revision).
      await onPrimaryBriefly(
        (sql) =>
          sql`UPDATE sites SET summer_water_deficit_mm = 650, vegetation_cover_pct = 100 WHERE latitude > 47.5`,
      )
      // The UPDATE's one scan of the primary's sites, counted once its connection is gone.
      expect(await eventually(async () => (await siteScans(primary)).table > start.primary.table)).toBe(true)
      await sleep(150)
      const changed = await siteScans(primary)
      const newRevision = await siteRevision(primary)
      expect(await siteRevision(replica)).not.toBe(newRevision)
      // Still in rotation: its lag is far below the limit of this server; only the revision tells.
      expect(stale.replica().state).toBe('healthy')

      const primaryReadsBefore = stale.db.reads.primaryReads()
      const after = await survivalMap(stale.url, stale.key)
      expect(after.siteCount).toBe(siteCount)
      expect(northernMean(after.cells)).toBeLessThan(northernMean(before.cells) - 0.05)
      // The replica was asked (and its copy, of the old revision, set aside); the primary's read is counted.
      expect(stale.replica().reads).toBe(2)
      expect(stale.db.reads.primaryReads()).toBe(primaryReadsBefore + 1)
      // Cached under the primary's revision: the next call reads no sites anywhere.
      expect(await survivalMap(stale.url, stale.key)).toEqual(after)
      expect(stale.replica().reads).toBe(2)
      expect(await siteRevision(replica)).not.toBe(newRevision)
      staleOpen = false
      await stale.close()

      // The sites were read again on the primary: its table scanned, its KNN index not.
      const reread = await settledScans()
      expect(reread.primary.table).toBeGreaterThan(changed.table)
      expect(reread.primary.knn).toBe(changed.knn)

      await replica`SELECT pg_wal_replay_resume()`
      paused = false
      expect(await eventually(async () => (await siteRevision(replica)) === newRevision, 10_000)).toBe(true)

      // Caught up: a fresh server's map of the same data comes from the replica alone.
      const caughtUp = await settledScans()
      const fresh = await startReplicaServer([pg.replicaUrl], { maxLagMs: 60_000 })
      try {
        expect(await survivalMap(fresh.url, fresh.key)).toEqual(after)
        expect(fresh.replica().reads).toBe(1)
      } finally {
        await fresh.close()
      }
      const served = await settledScans()
      expect(served.primary).toEqual(caughtUp.primary)
      expect(served.replica.table).toBeGreaterThan(caughtUp.replica.table)
    } finally {
      if (paused) await replica`SELECT pg_wal_replay_resume()`
      if (staleOpen) await stale.close()
    }
  })
})

describe('a site data version activated on the primary', () => {
  it('is answered from the replica within 1 s, and under load no answer mixes two versions', async () => {
    // As in production: the nearest-site index in memory, read from the replica and following it.
    const server = await startReplicaServer([pg.replicaUrl], { maxLagMs: 60_000, siteIndex: 'memory' })
    try {
      const before = await activeVersionName(server.db.sql)
      const drier = await keepChangedVersion(server.db.sql, (site) => ({
        ...site,
        summerWaterDeficitMm: site.summerWaterDeficitMm + 120,
        vegetationCoverPct: Math.min(100, site.vegetationCoverPct + 30),
      }))
      const kept = async () => (await replica`SELECT to_regclass(${drier}) AS t`)[0]?.t !== null
      expect(await eventually(kept, 10_000)).toBe(true)
      const points = forestGrid(12)
      const survival = new Map<string, number>()
      const mixed: string[] = []
      const late: string[] = []
      let activatedAt = Number.POSITIVE_INFINITY
      let stop = false
      const lane = async (offset: number) => {
        for (let i = offset; !stop; i++) {
          const point = points[i % points.length] as { latitude: number; longitude: number }
          const startedAt = Date.now()
          const answer = await rest(server.url, 'POST', '/v1/predict', {
            key: server.key,
            json: predictBody(point),
          })
          const version = answer.headers.get('survival-data-version') ?? ''
          if (answer.status !== 200) mixed.push(`${answer.status} ${answer.text}`)
          const value = answer.body.predictions?.[0]?.survival_probability as number
          const seen = `${version} ${point.latitude},${point.longitude}`
          if (survival.has(seen) && survival.get(seen) !== value)
            mixed.push(`${seen}: ${survival.get(seen)} and ${value}`)
          survival.set(seen, value)
          if (startedAt > activatedAt + 1000 && version !== drier)
            late.push(`${startedAt - activatedAt} ms: ${version}`)
        }
      }
      const replicaReads = server.replica().reads
      const lanes = Array.from({ length: 8 }, (_, offset) => lane(offset))
      await sleep(500)
      await activateSiteVersion(server.db.sql, drier)
      activatedAt = Date.now()
      await sleep(2500)
      stop = true
      await Promise.all(lanes)
      expect(mixed).toEqual([])
      expect(late).toEqual([])
      const versions = new Set([...survival.keys()].map((seen) => seen.split(' ')[0]))
      expect([...versions].sort()).toEqual([before, drier].sort())
      // The two versions answer differently at the same points: a stale site read would show.
      const differ = points.filter(
        (p) =>
          survival.get(`${before} ${p.latitude},${p.longitude}`) !==
          survival.get(`${drier} ${p.latitude},${p.longitude}`),
      )
      expect(differ.length).toBeGreaterThan(0)
      expect(server.replica().reads).toBeGreaterThan(replicaReads)
      await activateSiteVersion(server.db.sql, before)
      // Replayed before the next test pauses replay: the rename's locks must not outlive this test there.
      const replayed = async () =>
        (await replica<{ v: string }[]>`SELECT data_version AS v FROM site_revision`)[0]?.v === before
      expect(await eventually(replayed, 10_000)).toBe(true)
    } finally {
      await server.close()
    }
  })
})

describe('writes, and the reads that must see them, stay on the primary', () => {
  it('key requests and the keys they mail, usage, job state and results land on the primary while the replica is paused, and reach it by streaming', async () => {
    const mail = await startMailCatcher()
    const running = await startReplicaServer([pg.replicaUrl], { maxLagMs: 60_000, mail: mailEnv(mail) })
    const { url } = running
    await replica`SELECT pg_wal_replay_pause()`
    let paused = true
    try {
      const email = 'grower@example.org'
      const asked = await rest(url, 'POST', '/keys', { json: { email, name: 'replica test' } })
      expect(asked.status, asked.text).toBe(202)
      // Recorded, mailed and written on the primary: the mailer read what it decided from there too.
      const key = keyIn(await mail.next(email))
      const written = async () =>
        (await primary<{ id: string }[]>`SELECT id FROM api_keys WHERE email = ${email}`)[0]?.id
      expect(await eventually(async () => (await written()) !== undefined)).toBe(true)
      const newKey = { id: (await written()) as string, key }
      expect(
        await primary`SELECT 1 FROM key_requests WHERE email = ${email} AND state = 'sent'`,
      ).toHaveLength(1)

      // Used at once: the key is looked up on the primary (the paused replica has never seen it).
      for (const point of forestGrid(3)) await predictOnce(url, newKey.key, point)
      const usageOnPrimary = () =>
        primary<{ n: number }[]>`
          SELECT coalesce(sum(requests), 0)::int AS n FROM key_usage_daily WHERE account_id = ${newKey.id}`
      expect(await eventually(async () => (await usageOnPrimary())[0]?.n === 3)).toBe(true)
      const usage = await rest(url, 'GET', '/v1/usage', { key: newKey.key })
      expect(usage.status, usage.text).toBe(200)
      expect(usage.body.history.at(-1).requests).toBeGreaterThanOrEqual(3)

      const job = await runJob(url, running.key, 60)
      const [jobRow] = await primary<{ status: string; results: number }[]>`
        SELECT status, (SELECT count(*)::int FROM job_result_chunks c WHERE c.job_id = j.id) AS results
        FROM jobs j WHERE id = ${job.id}`
      expect(jobRow).toEqual({ status: 'succeeded', results: 2 })

      // The replica has none of it, yet the lookups were its own all along.
      expect(await replica`SELECT 1 FROM api_keys WHERE id = ${newKey.id}`).toHaveLength(0)
      expect(await replica`SELECT 1 FROM key_requests WHERE email = ${email}`).toHaveLength(0)
      expect(await replica`SELECT 1 FROM jobs WHERE id = ${job.id}`).toHaveLength(0)
      expect(running.replica()).toMatchObject({ state: 'healthy', retriedOnPrimary: 0 })
      // 3 predictions, and the job's lookups (its two chunks, scored at once, may share one statement).
      expect(running.replica().reads).toBeGreaterThanOrEqual(3 + 1)
      expect(running.db.reads.primaryReads()).toBe(0)

      await replica`SELECT pg_wal_replay_resume()`
      paused = false
      const streamed = await eventually(async () => {
        const [row] = await replica<{ key: number; usage: number; job: string | null; results: number }[]>`
          SELECT (SELECT count(*)::int FROM api_keys WHERE id = ${newKey.id}) AS key,
                 (SELECT coalesce(sum(requests), 0)::int FROM key_usage_daily WHERE account_id = ${newKey.id}) AS usage,
                 (SELECT status FROM jobs WHERE id = ${job.id}) AS job,
                 (SELECT count(*)::int FROM job_result_chunks WHERE job_id = ${job.id}) AS results`
        return row?.key === 1 && (row.usage ?? 0) >= 3 && row.job === 'succeeded' && row.results === 2
      }, 10_000)
      expect(streamed).toBe(true)
      expect(readOnlyRefusals()).toEqual([])
    } finally {
      if (paused) await replica`SELECT pg_wal_replay_resume()`
      await running.close()
      await mail.close()
    }
  })
})

describe('a replica out of rotation, and back (lag limit 300 ms, checked every 100 ms)', () => {
  let running: ReplicaServer
  let lines: Record<string, unknown>[]
  let name: string

  beforeAll(async () => {
    const recording = recordingLogger()
    lines = recording.lines
    running = await startReplicaServer([credentialedReplicaUrl()], {
      maxLagMs: 300,
      checkMs: 100,
      logger: recording.logger,
    })
    name = replicaName(pg.replicaUrl)
  })

  afterAll(() => running?.close())

  /** Neither the replica URL's user nor its password, anywhere in `text`. */
  function expectNoCredentials(text: string) {
    expect(text).not.toContain(READER)
    expect(text).not.toContain(READER_PASSWORD)
  }

  /** /v1/health (checked against the OpenAPI document by the REST client) once its replica is in `state`. */
  async function healthIn(state: ReplicaStatus['state']) {
    let health: Awaited<ReturnType<typeof rest>> | undefined
    const reached = await eventually(async () => {
      health = await rest(running.url, 'GET', '/v1/health')
      return health.body.replicas?.[0]?.state === state
    }, 15_000)
    expect(reached, health?.text).toBe(true)
    const answered = health as Awaited<ReturnType<typeof rest>>
    expect(answered.status).toBe(200)
    expectNoCredentials(answered.text)
    return answered.body as {
      status: string
      replicas: { name: string; state: string; lag_ms: number | null }[]
    }
  }

  async function metricsIn(state: ReplicaStatus['state']): Promise<string> {
    let text = ''
    const reached = await eventually(async () => {
      text = await scrape(running.url)
      return sample(text, 'survival_db_replica_state', { replica: name, state }) === 1
    }, 15_000)
    expect(reached, text).toBe(true)
    expectNoCredentials(text)
    return text
  }

  /**
   * A read (2 s long) started through the pool and seen running on the replica: the pool may have sent it
   * to the primary if a check had just taken the replica out, so it is tried again until one is there.
   */
  async function readInFlightOnReplica(): Promise<{ read: Promise<{ standby: boolean }[]> }> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const read = running.db.reads.read(
        (sql) => sql<{ standby: boolean }[]>`SELECT pg_is_in_recovery() AS standby FROM pg_sleep(2)`,
      )
      const onReplica = await eventually(
        async () =>
          (
            await replica`
              SELECT 1 FROM pg_stat_activity
              WHERE application_name = 'survival-api' AND state = 'active' AND query LIKE '%pg_sleep(2)%'`
          ).length === 1,
        500,
        20,
      )
      if (onReplica) return { read }
      await read
    }
    throw new Error('no read could be caught in flight on the replica')
  }

  it('/v1/health, GraphQL health and /metrics show the replica by host:port/database, with its lag, and no credentials', async () => {
    const health = await healthIn('healthy')
    expect(health.status).toBe('healthy')
    expect(health.replicas).toHaveLength(1)
    expect(health.replicas[0]?.name).toBe(name)
    expect(health.replicas[0]?.lag_ms).toBeGreaterThanOrEqual(0)
    expect(health.replicas[0]?.lag_ms).toBeLessThanOrEqual(300)

    const gql = await graphql(running.url, '{ health { status replicas { name state lagMs } } }')
    expect(gql.status).toBe(200)
    expect(gql.body.data.health.replicas).toEqual([
      { name, state: expect.stringMatching(/^(healthy|lagging)$/), lagMs: expect.any(Number) },
    ])
    expectNoCredentials(JSON.stringify(gql.body))

    // Served by the replica (a check may have just set it aside for a moment: then the next one is).
    expect(
      await eventually(async () => {
        await predictOnce(running.url, running.key)
        return running.replica().reads > 0
      }),
    ).toBe(true)
    const metrics = await metricsIn('healthy')
    expect(sample(metrics, 'survival_db_replica_up', { replica: name })).toBe(1)
    for (const state of ['starting', 'lagging', 'down'])
      expect(sample(metrics, 'survival_db_replica_state', { replica: name, state })).toBe(0)
    expect(sample(metrics, 'survival_db_replica_lag_seconds', { replica: name })).toBeLessThanOrEqual(0.3)
    expect(sample(metrics, 'survival_db_reads_total', { server: name })).toBeGreaterThanOrEqual(1)
    expect(sample(metrics, 'survival_db_reads_total', { server: 'primary' })).toBeDefined()
    expect(sample(metrics, 'survival_db_replica_retries_total', { replica: name })).toBe(0)
  })

  it('replay paused beyond the lag limit: lagging, reads go to the primary; resumed: healthy and serving again', async () => {
    await healthIn('healthy')
    await replica`SELECT pg_wal_replay_pause()`
    let paused = true
    try {
      // A write the replica cannot replay: it falls behind the primary.
      await createKey(primary, { tier: 'spore', name: 'makes the replica fall behind' })
      const health = await healthIn('lagging')
      expect(health.status).toBe('healthy')
      expect(health.replicas[0]?.lag_ms).toBeGreaterThan(300)
      const metrics = await metricsIn('lagging')
      expect(sample(metrics, 'survival_db_replica_up', { replica: name })).toBe(0)
      expect(sample(metrics, 'survival_db_replica_lag_seconds', { replica: name })).toBeGreaterThan(0.3)

      const onReplica = running.replica().reads
      const onPrimary = running.db.reads.primaryReads()
      for (const point of forestGrid(5)) await predictOnce(running.url, running.key, point)
      expect(running.replica().reads).toBe(onReplica)
      // Per predict, a read of the nearest site's id, and another of the site in full when this
      // process does not hold it yet (src/db/site-cache.ts): all of them on the primary.
      const primaryReads = running.db.reads.primaryReads() - onPrimary
      expect(primaryReads).toBeGreaterThanOrEqual(5)
      expect(primaryReads).toBeLessThanOrEqual(10)
      expect(running.replica().state).toBe('lagging')

      await replica`SELECT pg_wal_replay_resume()`
      paused = false
      const resumed = await healthIn('healthy')
      expect(resumed.replicas[0]?.lag_ms).toBeLessThanOrEqual(300)
      const served = await eventually(async () => {
        await predictOnce(running.url, running.key)
        return running.replica().reads > onReplica
      })
      expect(served).toBe(true)
    } finally {
      if (paused) await replica`SELECT pg_wal_replay_resume()`
    }
  })

  it('a write after the primary sat idle reads as the time since the replica was last caught up, not since the last transaction', async () => {
    await healthIn('healthy')
    // Nothing committed on the primary for 3 s: the replica's last replayed transaction is as old.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    await replica`SELECT pg_wal_replay_pause()`
    try {
      const wroteAt = Date.now()
      await createKey(primary, { tier: 'spore', name: 'the first write after an idle spell' })
      expect(await eventually(async () => (running.replica().lagMs ?? 0) > 0, 5000, 20)).toBe(true)
      // Behind by at most the time since the write and one check interval, far from the 3 s idle.
      expect(running.replica().lagMs).toBeLessThan(Date.now() - wroteAt + 300)
      expect(running.replica().lagMs).toBeLessThan(1500)
    } finally {
      await replica`SELECT pg_wal_replay_resume()`
    }
    await healthIn('healthy')
  })

  it('the replica stopped under load (fast shutdown): every answer 200, reads move to the primary, and it comes back when started', async () => {
    await healthIn('healthy')
    const outcomes = new Map<string, number>()
    const tally = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
    const points = forestGrid(400)
    let loading = true
    let turn = 0
    let backAfterMs = -1
    const headers = { 'content-type': 'application/json', 'x-api-key': running.key }
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${running.url}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      })
      const text = await response.text()
      if (response.status !== 200) return `${path} ${response.status} ${text.slice(0, 200)}`
      if (path === '/graphql' && JSON.parse(text).errors) return `${path} ${text.slice(0, 200)}`
      return '200'
    }
    const loop = async (call: () => Promise<string>) => {
      while (loading) tally(await call().catch((error: Error) => `fetch failed: ${error.message}`))
    }
    const next = () => points[turn++ % points.length] as { latitude: number; longitude: number }
    const loops = [
      ...Array.from({ length: 4 }, () => loop(() => post('/v1/predict', predictBody(next())))),
      loop(() => post('/v1/predict/batch', { sites: predictBodies(10) })),
      loop(() => {
        const point = next()
        return post('/graphql', {
          query: `{ speciesRanking(latitude: ${point.latitude}, longitude: ${point.longitude}, plantingMethod: MANUAL, horizon: 5) { ranking { rank } } }`,
        })
      }),
    ]
    try {
      await sleep(700)
      expect(running.replica().reads).toBeGreaterThan(0)
      const inFlight = await readInFlightOnReplica()

      await stopReplica(pg, 'fast')
      const down = await healthIn('down')
      expect(down.status).toBe('healthy')
      expect(down.replicas[0]?.lag_ms).toBeNull()
      // The read the shutdown cut off was answered all the same: by the primary (not in recovery).
      expect(await inFlight.read).toEqual([{ standby: false }])
      expect(running.replica().retriedOnPrimary).toBeGreaterThanOrEqual(1)
      const primaryDuring = running.db.reads.primaryReads()
      await sleep(1500)
      // Meanwhile every lag-tolerant read was the primary's.
      expect(running.db.reads.primaryReads()).toBeGreaterThan(primaryDuring + 10)
      expect(running.replica()).toMatchObject({ state: 'down', lagMs: null })
      const metrics = await metricsIn('down')
      expect(sample(metrics, 'survival_db_replica_up', { replica: name })).toBe(0)
      expect(sample(metrics, 'survival_db_replica_lag_seconds', { replica: name })).toBeUndefined()
      expect(sample(metrics, 'survival_db_replica_retries_total', { replica: name })).toBe(
        running.replica().retriedOnPrimary,
      )
      expect(sample(metrics, 'survival_db_reads_total', { server: 'primary' })).toBeGreaterThan(primaryDuring)

      await startReplica(pg)
      // Streaming again: back in rotation within a few checks, and serving.
      const started = performance.now()
      await healthIn('healthy')
      backAfterMs = Math.round(performance.now() - started)
      expect(backAfterMs).toBeLessThan(5000)
      const replicaAgain = running.replica().reads
      expect(await eventually(() => running.replica().reads > replicaAgain + 10, 10_000)).toBe(true)
    } finally {
      loading = false
      await Promise.all(loops)
    }
    const answered = [...outcomes.values()].reduce((sum, count) => sum + count, 0)
    console.log(
      `replica stopped under load: ${answered} answers, ${running.replica().retriedOnPrimary} retried on the primary, back in rotation ${backAfterMs} ms after it was streaming again`,
    )
    expect(Object.fromEntries(outcomes)).toEqual({ '200': answered })
    expect(answered).toBeGreaterThan(100)
    expect(readOnlyRefusals()).toEqual([])
  })

  it('each departure and return is logged once (warn with its reason, info), with no credentials in the logs or the reasons', () => {
    expect(lines.length).toBeGreaterThan(0)
    const changes = lines.filter((line) => String(line.msg).startsWith('read replica'))
    const out = changes.filter(
      (line) => line.msg === 'read replica out of rotation: its reads go to the primary',
    )
    const back = changes.filter((line) => line.msg === 'read replica in rotation')
    // Out when replay was paused and when the replica was stopped; back after each, and at the start.
    expect(out.length).toBeGreaterThanOrEqual(2)
    expect(back.length).toBeGreaterThanOrEqual(3)
    for (const line of out) {
      expect(line).toMatchObject({ level: 40, replica: name, from: 'healthy' })
      expect(['lagging', 'down']).toContain(line.state)
      expect(String(line.reason)).not.toBe('')
    }
    for (const line of back) expect(line).toMatchObject({ level: 30, replica: name, state: 'healthy' })
    expectNoCredentials(JSON.stringify(lines))
    expectNoCredentials(JSON.stringify(running.db.reads.replicas()))
  })
})

describe('without DATABASE_REPLICA_URLS', () => {
  it('everything is read from the primary as before: no replicas in health, none in the metrics', async () => {
    const running = await startReplicaServer([], { maxLagMs: 5000 })
    try {
      expect(running.db.reads.replicas()).toEqual([])
      // A fresh process reads the nearest site's id, then the site in full; the second time, the id alone.
      await predictOnce(running.url, running.key)
      expect(running.db.reads.primaryReads()).toBe(2)
      await predictOnce(running.url, running.key)
      expect(running.db.reads.primaryReads()).toBe(3)
      const health = await rest(running.url, 'GET', '/v1/health')
      expect(health.status).toBe(200)
      expect(health.body).not.toHaveProperty('replicas')
      const gql = await graphql(running.url, '{ health { replicas { name } } }')
      expect(gql.body.data.health.replicas).toEqual([])
      const metrics = await scrape(running.url)
      expect(metrics).not.toMatch(/survival_db_replica_|survival_db_reads_total/)
    } finally {
      await running.close()
    }
    // The CLIs open the database without readReplicas: the replicas are not opened even when listed.
    const cli = await openDatabase({
      DATABASE_URL: pg.primaryUrl,
      DB_POOL_MAX: 1,
      DATABASE_REPLICA_URLS: [pg.replicaUrl],
    })
    try {
      expect(cli.reads.replicas()).toEqual([])
    } finally {
      await cli.close()
    }
  })
})
