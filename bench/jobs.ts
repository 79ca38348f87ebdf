/**
 * `npm run bench:jobs`: a portfolio scored end to end — a CSV of BENCH_JOB_ROWS (1,000,000) rows
 * streamed up, scored, and its results streamed down — against the ≥ 250,000 rows per minute and
 * ≤ 300 MB server RSS targets; then the same job on one and on two `npm run worker` processes (the
 * server only queues), with the CPU each process used, to see how scoring scales and what bounds it.
 *
 * The server is the production build (`npm run build`'s tsc output), PostgreSQL and Redis the local
 * ones; the data is a fresh seeded database. Rows are the seeded sites moved by up to ~300 m, all 20
 * species and both methods in turn, so no two rows ask the same thing.
 *
 * GeoJSON jobs too: BENCH_JOB_ROWS point features in one FeatureCollection, end to end with GeoJSON
 * results (the same rate and RSS targets), and BENCH_JOB_STANDS (10,000) stands of 10–500 ha planned as
 * one job (≤ 2 minutes).
 *
 * With a read replica (`replica`, opt-in): BENCH_JOB_SCALE_ROWS rows scored on a PostgreSQL primary alone
 * and then with one streaming replica, with each engine's CPU over the scoring phase (≤ 20 % target).
 *
 * Env: BENCH_JOB_ROWS (1000000), BENCH_JOB_SCALE_ROWS (rows of the worker comparison and the replica
 * split; 300000), BENCH_JOB_STANDS (10000), BENCH_JOB_SCENARIOS (in-server,workers,geojson-points,
 * geojson-stands by default; add replica; comma-separated), BENCH_ADMIN_DATABASE_URL, BENCH_REDIS_URL.
 */
import { readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { runJob, type Site, writePointCollection, writePortfolio, writeStandCollection } from './job-files.ts'
import { BENCH_ADDRESS_HASH_KEY, buildProject, PRODUCTION_ENV, PRODUCTION_NODE_ARGS } from './servers.ts'
import {
  type Child,
  createDatabase,
  deleteRedisKeys,
  freePort,
  listRedisKeys,
  pidsOf,
  processAndChildren,
  REDIS_URL,
  RssSampler,
  randomSuffix,
  readCpuMs,
  readCpuMsOf,
  readMachineCpu,
  round,
  spawnNode,
  waitForHealthy,
} from './support.ts'

const ROWS = Number(process.env.BENCH_JOB_ROWS ?? 1_000_000)
const SCALE_ROWS = Number(process.env.BENCH_JOB_SCALE_ROWS ?? 300_000)
const STANDS = Number(process.env.BENCH_JOB_STANDS ?? 10_000)
const SCENARIOS = (
  process.env.BENCH_JOB_SCENARIOS ?? 'in-server,workers,geojson-points,geojson-stands'
).split(',')
const TARGET_STANDS_SECONDS = 120
const TARGET_ROWS_PER_MINUTE = 250_000
const TARGET_RSS_MB = 300
const TARGET_SCALING = 1.6
const SERVER_ENTRY = 'dist/src/wiring/main.js'
const WORKER_ENTRY = 'dist/src/wiring/worker.js'
/** The node flags of `npm run start:prod` (its settings are PRODUCTION_ENV): workers and server run as the Docker image runs them. */
const NODE_ARGS = PRODUCTION_NODE_ARGS

const log = (message: string) => process.stderr.write(`${message}\n`)

async function startServer(
  databaseUrl: string,
  env: { JOB_QUEUE_PREFIX: string } & Record<string, string>,
): Promise<{ child: Child; url: string }> {
  const port = await freePort()
  const child = spawnNode(
    'server',
    SERVER_ENTRY,
    {
      ...PRODUCTION_ENV,
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // The quota counters beside the queue, under the prefix the run deletes at its end.
      QUOTA_KEY_PREFIX: `${env.JOB_QUEUE_PREFIX}:quota:`,
      // With DATABASE_URL a server will not start with /metrics open; nothing here reads it.
      METRICS_TOKEN: `bench-${randomSuffix()}${randomSuffix()}`,
      // Required with DATABASE_URL: the secret client addresses are hashed under.
      ADDRESS_HASH_KEY: BENCH_ADDRESS_HASH_KEY,
      ...env,
    },
    { nodeArgs: NODE_ARGS },
  )
  const url = `http://127.0.0.1:${port}`
  await waitForHealthy(`${url}/v1/health`, child, 60_000)
  return { child, url }
}

/** CPU ms used meanwhile by each process group: server, workers, PostgreSQL, Redis; and the machine's idle share. */
function cpuMeter(groups: Record<string, () => number[]>) {
  const read = () =>
    Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, readCpuMsOf(pids())]))
  const before = read()
  const machine = readMachineCpu()
  return () => {
    const after = read()
    const now = readMachineCpu()
    const used = Object.fromEntries(
      Object.keys(groups).map((name) => [name, (after[name] ?? 0) - (before[name] ?? 0)]),
    )
    return { used, idleShare: (now.idle - machine.idle) / Math.max(1, now.total - machine.total) }
  }
}

/** CPU ms so far of each of pids. */
function cpuByPid(pids: readonly number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, readCpuMs(pid) ?? 0]))
}

/** CPU ms spent between two readings by PostgreSQL process kind: backends, walsender, the rest. */
function cpuByRole(before: Map<number, number>, after: Map<number, number>): Record<string, number> {
  const roles: Record<string, number> = { backends: 0, walsender: 0, background: 0 }
  for (const [pid, ms] of after) {
    let title = ''
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    } catch {}
    const role = title.includes('walsender')
      ? 'walsender'
      : /postgres: \S+ \S+ [\d.:]+\(/.test(title)
        ? 'backends'
        : 'background'
    roles[role] = (roles[role] ?? 0) + ms - (before.get(pid) ?? 0)
  }
  return roles
}

const perMinute = (rows: number, ms: number) => Math.round((rows / ms) * 60_000)

/**
 * The same job scored twice on a PostgreSQL primary with one streaming replica (scripts/engines.ts):
 * first with the primary alone, then with DATABASE_REPLICA_URLS. The CPU of each engine's postmaster and
 * backends over the scoring phase shows where the nearest-site lookups went; the per-row costs feed the
 * N replicas × M workers model in docs/deployment.md. On this machine both engines share the cores,
 * so the figure that matters is the split, not the speed.
 */
async function replicaSplit(sites: readonly Site[]): Promise<string[]> {
  const { startPostgresWithReplica } = await import('../scripts/engines/postgres-replica.ts')
  const engines = await startPostgresWithReplica()
  log(`primary + replica started in ${engines.startupMs} ms`)
  const file = join(tmpdir(), `portfolio-${SCALE_ROWS}-${randomSuffix()}.csv`)
  const prefix = `bench:jobs:${randomSuffix()}`
  const children: Child[] = []
  try {
    for (const cli of ['dist/src/cli/db-migrate.js', 'dist/src/cli/db-seed.js']) {
      const child = spawnNode(
        cli,
        cli,
        { DATABASE_URL: engines.primaryUrl, LOG_LEVEL: 'warn' },
        { quiet: true },
      )
      if ((await child.exited) !== 0) throw new Error(`${cli} failed`)
    }
    const sql = postgres(engines.primaryUrl, { max: 1, onnotice: () => {} })
    const { createKey } = await import('../src/db/keys.ts')
    const { key } = await createKey(sql as never, { tier: 'hypha', name: 'bench' })
    await sql.end()
    await writePortfolio(file, sites, SCALE_ROWS)
    const [primaryPid, replicaPid] = engines.pids as [number, number]
    let primaryBefore = new Map<number, number>()
    const primaryRoles: Record<string, number>[] = []
    const measured: {
      label: string
      rate: number
      perRowUs: Record<string, number>
      share: Record<string, number>
    }[] = []
    for (const [label, env] of [
      ['primary alone', {}],
      ['one replica', { DATABASE_REPLICA_URLS: engines.replicaUrl }],
    ] as const) {
      const server = await startServer(engines.primaryUrl, {
        JOB_QUEUE_PREFIX: `${prefix}:${measured.length}`,
        ...env,
      })
      children.push(server.child)
      let cpu: ReturnType<typeof cpuMeter> | undefined
      let spent: ReturnType<ReturnType<typeof cpuMeter>> | undefined
      log(`${SCALE_ROWS.toLocaleString('en-US')} rows, ${label}`)
      const run = await runJob(
        server.url,
        key,
        file,
        SCALE_ROWS,
        { type: 'text/csv' },
        {
          scoring: () => {
            primaryBefore = cpuByPid(processAndChildren(primaryPid))
            cpu = cpuMeter({
              server: () => [server.child.pid],
              primary: () => processAndChildren(primaryPid),
              replica: () => processAndChildren(replicaPid),
            })
          },
          progress: log,
          scored: () => {
            spent = cpu?.()
            primaryRoles.push(cpuByRole(primaryBefore, cpuByPid(processAndChildren(primaryPid))))
          },
        },
      )
      await server.child.stop()
      if (!spent || run.resultRows !== SCALE_ROWS) throw new Error(`${label}: ${run.resultRows} result rows`)
      const seconds = run.queuedToDoneMs / 1000
      const groups = ['server', 'primary', 'replica'] as const
      measured.push({
        label,
        rate: perMinute(SCALE_ROWS, run.scoringMs),
        perRowUs: Object.fromEntries(groups.map((g) => [g, ((spent?.used[g] ?? 0) * 1000) / SCALE_ROWS])),
        share: Object.fromEntries(groups.map((g) => [g, (spent?.used[g] ?? 0) / 1000 / seconds])),
      })
    }
    const [alone, withReplica] = measured as [(typeof measured)[0], (typeof measured)[0]]
    // The same rows either way, so the primary's CPU per row is its part of the same work; its share of a
    // core also moves with how fast scoring ran, which on two shared cores is noise.
    const fall = (withReplica.perRowUs.primary ?? 0) / Math.max(1e-9, alone.perRowUs.primary ?? 0)
    const shareFall = (withReplica.share.primary ?? 0) / Math.max(1e-9, alone.share.primary ?? 0)
    const pct = (share = 0) => `${round(share * 100, 0)} % of a core`
    const us = (value = 0) => `${round(value, 1)} µs`
    return [
      `## Read replica: where the CPU goes while ${SCALE_ROWS.toLocaleString('en-US')} rows are scored (one server, in-server worker; primary and replica on this machine)`,
      '',
      '| setting | rows per minute (scoring) | primary CPU | replica CPU | server CPU |',
      '|---|---|---|---|---|',
      ...measured.map(
        (m) =>
          `| ${m.label} | ${m.rate.toLocaleString('en-US')} | ${pct(m.share.primary)} (${us(m.perRowUs.primary)}/row) | ${pct(m.share.replica)} (${us(m.perRowUs.replica)}/row) | ${pct(m.share.server)} (${us(m.perRowUs.server)}/row) |`,
      ),
      '',
      `The primary's CPU for the same job with one replica / primary alone: ${round(fall * 100, 0)} % (target ≤ 20 %) ${fall <= 0.2 ? 'PASS' : 'FAIL'}; its share of a core: ${round(shareFall * 100, 0)} %.`,
      '',
      `The primary's CPU by process over the scoring phase (backends serve queries; the WAL sender streams to the replica): ${measured
        .map(
          (m, i) =>
            `${m.label}: ${Object.entries(primaryRoles[i] ?? {})
              .map(([role, ms]) => `${role} ${round(ms / 1000, 1)} s`)
              .join(', ')}`,
        )
        .join('; ')}.`,
      '',
      `Per-row costs for the model in docs/deployment.md (with the replica): worker ${us(withReplica.perRowUs.server)}, replica ${us(withReplica.perRowUs.replica)}, primary ${us(withReplica.perRowUs.primary)}.`,
      '',
    ]
  } finally {
    for (const child of children) await child.stop()
    await rm(file, { force: true })
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${prefix}*`))
    await engines.stop()
  }
}

async function main() {
  buildProject(log)
  const database = await createDatabase('survival_bench_jobs')
  const prefix = `bench:jobs:${randomSuffix()}`
  const files: string[] = []
  const children: Child[] = []
  try {
    log(`database ${database.name}: migrate and seed`)
    for (const cli of ['dist/src/cli/db-migrate.js', 'dist/src/cli/db-seed.js']) {
      const child = spawnNode(cli, cli, { DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, { quiet: true })
      if ((await child.exited) !== 0) throw new Error(`${cli} failed`)
    }
    const sql = postgres(database.url, { max: 1, onnotice: () => {} })
    const sites = await sql<Site[]>`SELECT latitude, longitude FROM sites ORDER BY id`
    const { createKey } = await import('../src/db/keys.ts')
    const { key } = await createKey(sql as never, { tier: 'hypha', name: 'bench' })
    await sql.end()

    const report: string[] = []
    const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL')

    if (SCENARIOS.includes('in-server')) {
      const file = join(tmpdir(), `portfolio-${ROWS}-${randomSuffix()}.csv`)
      files.push(file)
      const bytes = await writePortfolio(file, sites, ROWS)
      log(`portfolio: ${ROWS.toLocaleString('en-US')} rows, ${round(bytes / 2 ** 20, 1)} MiB`)
      const server = await startServer(database.url, { JOB_QUEUE_PREFIX: `${prefix}:a` })
      children.push(server.child)
      const rss = new RssSampler(server.child.pid, 100)
      const cpu = cpuMeter({
        server: () => [server.child.pid],
        postgres: () => pidsOf('postgres'),
        redis: () => pidsOf('redis-server'),
      })
      log('end to end, one server with its in-server worker (BullMQ on Redis)')
      const run = await runJob(server.url, key, file, ROWS, { type: 'text/csv' }, { progress: log })
      const spent = cpu()
      const peak = rss.max()
      await server.child.stop()
      const rate = perMinute(ROWS, run.totalMs)
      report.push(
        `## ${ROWS.toLocaleString('en-US')} rows end to end (upload → succeeded → results downloaded), one server`,
        '',
        '| measure | value | target |',
        '|---|---|---|',
        `| rows per minute, end to end | ${rate.toLocaleString('en-US')} | ≥ ${TARGET_ROWS_PER_MINUTE.toLocaleString('en-US')} ${pass(rate >= TARGET_ROWS_PER_MINUTE)} |`,
        `| total | ${round(run.totalMs / 1000, 1)} s | ≤ ${round((ROWS / TARGET_ROWS_PER_MINUTE) * 60, 0)} s |`,
        `| upload (streamed, parsed, checked, stored) | ${round(run.uploadMs / 1000, 1)} s | |`,
        `| scoring (first chunk started → last written) | ${round(run.scoringMs / 1000, 1)} s, ${perMinute(ROWS, run.scoringMs).toLocaleString('en-US')} rows/min | |`,
        `| download (streamed) | ${round(run.downloadMs / 1000, 1)} s | |`,
        `| result rows | ${run.resultRows.toLocaleString('en-US')} (${run.rowsFailed.toLocaleString('en-US')} failed) | = ${ROWS.toLocaleString('en-US')} ${pass(run.resultRows === ROWS)} |`,
        `| server peak RSS | ${round(peak, 0)} MB | ≤ ${TARGET_RSS_MB} MB ${pass(peak <= TARGET_RSS_MB)} |`,
        `| CPU: server / PostgreSQL / Redis | ${Object.values(spent.used)
          .map((ms) => `${round(ms / 1000, 1)} s`)
          .join(' / ')} | |`,
        `| machine idle during the run | ${round(spent.idleShare * 100, 0)} % | |`,
        '',
      )
    }

    if (SCENARIOS.includes('workers')) {
      const file = join(tmpdir(), `portfolio-${SCALE_ROWS}-${randomSuffix()}.csv`)
      files.push(file)
      await writePortfolio(file, sites, SCALE_ROWS)
      const rows: string[] = []
      const rates: number[] = []
      for (const workers of [1, 2]) {
        const queuePrefix = `${prefix}:w${workers}`
        const server = await startServer(database.url, {
          JOB_QUEUE_PREFIX: queuePrefix,
          JOB_WORKERS_IN_SERVER: 'false',
        })
        children.push(server.child)
        const started: Child[] = []
        for (let n = 0; n < workers; n++) {
          const worker = spawnNode(
            `worker${n + 1}`,
            WORKER_ENTRY,
            {
              ...PRODUCTION_ENV,
              DATABASE_URL: database.url,
              REDIS_URL,
              JOB_QUEUE_PREFIX: queuePrefix,
              LOG_LEVEL: 'warn',
            },
            { nodeArgs: NODE_ARGS },
          )
          started.push(worker)
          children.push(worker)
        }
        await new Promise((resolve) => setTimeout(resolve, 2000))
        const cpu = cpuMeter({
          workers: () => started.map((w) => w.pid),
          server: () => [server.child.pid],
          postgres: () => pidsOf('postgres'),
        })
        log(
          `${SCALE_ROWS.toLocaleString('en-US')} rows on ${workers} worker process${workers > 1 ? 'es' : ''}`,
        )
        const run = await runJob(server.url, key, file, SCALE_ROWS, { type: 'text/csv' }, { progress: log })
        const spent = cpu()
        const rate = perMinute(SCALE_ROWS, run.scoringMs)
        rates.push(rate)
        const scoringSeconds = run.scoringMs / 1000
        rows.push(
          `| ${workers} | ${rate.toLocaleString('en-US')} | ${round((spent.used.workers ?? 0) / 1000, 1)} s (${round(((spent.used.workers ?? 0) / 1000 / scoringSeconds) * 100, 0)} % of a core) | ${round((spent.used.postgres ?? 0) / 1000, 1)} s (${round(((spent.used.postgres ?? 0) / 1000 / scoringSeconds) * 100, 0)} %) | ${round(spent.idleShare * 100, 0)} % |`,
        )
        for (const child of [...started, server.child]) await child.stop()
        await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${queuePrefix}*`))
      }
      const scaling = (rates[1] ?? 0) / Math.max(1, rates[0] ?? 0)
      report.push(
        `## Scoring on 1 and 2 worker processes (${SCALE_ROWS.toLocaleString('en-US')} rows; the server only queues)`,
        '',
        '| workers | rows per minute (scoring) | worker CPU | PostgreSQL CPU | machine idle |',
        '|---|---|---|---|---|',
        ...rows,
        '',
        `Two workers / one: ${round(scaling, 2)}× (target ≥ ${TARGET_SCALING}× when PostgreSQL is not the bottleneck) ${pass(scaling >= TARGET_SCALING)}`,
        '',
      )
    }
    if (SCENARIOS.includes('geojson-points')) {
      const file = join(tmpdir(), `points-${ROWS}-${randomSuffix()}.geojson`)
      files.push(file)
      const bytes = await writePointCollection(file, sites, ROWS)
      log(`point features: ${ROWS.toLocaleString('en-US')}, ${round(bytes / 2 ** 20, 1)} MiB`)
      const server = await startServer(database.url, { JOB_QUEUE_PREFIX: `${prefix}:g` })
      children.push(server.child)
      const rss = new RssSampler(server.child.pid, 100)
      log('GeoJSON points end to end, one server with its in-server worker')
      const run = await runJob(
        server.url,
        key,
        file,
        ROWS,
        { type: 'application/geo+json' },
        { progress: log },
      )
      const peak = rss.max()
      await server.child.stop()
      const rate = perMinute(ROWS, run.totalMs)
      report.push(
        `## ${ROWS.toLocaleString('en-US')} GeoJSON point features end to end (upload → succeeded → GeoJSON results downloaded), one server`,
        '',
        '| measure | value | target |',
        '|---|---|---|',
        `| features per minute, end to end | ${rate.toLocaleString('en-US')} | ≥ ${TARGET_ROWS_PER_MINUTE.toLocaleString('en-US')} ${pass(rate >= TARGET_ROWS_PER_MINUTE)} |`,
        `| upload / scoring / download | ${round(run.uploadMs / 1000, 1)} s / ${round(run.scoringMs / 1000, 1)} s / ${round(run.downloadMs / 1000, 1)} s | |`,
        `| result features | ${run.resultRows.toLocaleString('en-US')} (${run.rowsFailed.toLocaleString('en-US')} failed) | = ${ROWS.toLocaleString('en-US')} ${pass(run.resultRows === ROWS)} |`,
        `| server peak RSS | ${round(peak, 0)} MB | ≤ ${TARGET_RSS_MB} MB ${pass(peak <= TARGET_RSS_MB)} |`,
        '',
      )
    }

    if (SCENARIOS.includes('geojson-stands')) {
      const file = join(tmpdir(), `stands-${STANDS}-${randomSuffix()}.geojson`)
      files.push(file)
      await writeStandCollection(file, sites, STANDS)
      const server = await startServer(database.url, { JOB_QUEUE_PREFIX: `${prefix}:s` })
      children.push(server.child)
      const rss = new RssSampler(server.child.pid, 100)
      log(`${STANDS.toLocaleString('en-US')} stands of 10–500 ha as one job`)
      const run = await runJob(
        server.url,
        key,
        file,
        STANDS,
        {
          type: 'application/geo+json',
          query: '?planting_method=manual&trees_per_acre=350',
        },
        { progress: log },
      )
      const peak = rss.max()
      await server.child.stop()
      const seconds = run.totalMs / 1000
      report.push(
        `## ${STANDS.toLocaleString('en-US')} stands of 10–500 ha planted as one GeoJSON job, one server`,
        '',
        '| measure | value | target |',
        '|---|---|---|',
        `| end to end | ${round(seconds, 1)} s | ≤ ${TARGET_STANDS_SECONDS} s ${pass(seconds <= TARGET_STANDS_SECONDS)} |`,
        `| upload / scoring / download | ${round(run.uploadMs / 1000, 1)} s / ${round(run.scoringMs / 1000, 1)} s / ${round(run.downloadMs / 1000, 1)} s | |`,
        `| result features | ${run.resultRows.toLocaleString('en-US')} (${run.rowsFailed.toLocaleString('en-US')} failed) | = ${STANDS.toLocaleString('en-US')} ${pass(run.resultRows === STANDS)} |`,
        `| server peak RSS | ${round(peak, 0)} MB | |`,
        '',
      )
    }
    if (SCENARIOS.includes('replica')) report.push(...(await replicaSplit(sites)))
    process.stdout.write(`\n${report.join('\n')}\n`)
  } finally {
    for (const child of children) await child.stop()
    await Promise.all(files.map((file) => rm(file, { force: true })))
    await deleteRedisKeys(REDIS_URL, await listRedisKeys(REDIS_URL, `${prefix}*`))
    await database.drop()
  }
}

await main()
