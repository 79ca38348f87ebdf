/**
 * `npm run bench:seed`: the two start-up times, a few runs each, medians against the ≤ 10 s targets.
 *
 * - seed load: `npm run db:seed` (src/cli/db-seed.ts, as its own process) into a freshly migrated
 *   database, wall time from spawn to exit (the CLI's own in-process figure is shown too);
 * - embedded cold start: `node --import tsx src/wiring/main.ts` without DATABASE_URL (PGlite in memory, migrated
 *   and seeded at start) until GET /v1/health answers 200.
 *
 * Env: BENCH_SEED_RUNS (3), BENCH_ADMIN_DATABASE_URL.
 */
import { openDatabase } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import { createDatabase, freePort, median, round, spawnNode, waitForHealthy } from './support.ts'

const RUNS = Math.max(1, Number(process.env.BENCH_SEED_RUNS ?? 3))
const TARGET_MS = 10_000

async function seedLoadOnce(): Promise<{ wallMs: number; inProcessMs: number | null }> {
  const database = await createDatabase('survival_bench_seed')
  try {
    const db = await openDatabase({ DATABASE_URL: database.url, DB_POOL_MAX: 1 })
    try {
      await migrate(db.sql)
    } finally {
      await db.close()
    }
    const started = performance.now()
    const child = spawnNode('db:seed', 'src/cli/db-seed.ts', { DATABASE_URL: database.url }, { quiet: true })
    let output = ''
    child.process.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    child.process.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    const code = await child.exited
    const wallMs = performance.now() - started
    if (code !== 0) throw new Error(`db:seed exited with ${code}: ${output.slice(0, 1000)}`)
    const reported = /"ms":(\d+)[^\n]*seed complete|seed complete[^\n]*"ms":(\d+)/.exec(output)
    const inProcessMs = reported ? Number(reported[1] ?? reported[2]) : null
    return { wallMs, inProcessMs }
  } finally {
    await database.drop()
  }
}

async function coldStartOnce(): Promise<{ ms: number; status: unknown }> {
  const port = await freePort()
  const child = spawnNode(
    'embedded',
    'src/wiring/main.ts',
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'warn',
      WEB_CONCURRENCY: '1',
    },
    { quiet: true },
  )
  try {
    const { ms, body } = await waitForHealthy(`http://127.0.0.1:${port}/v1/health`, child, 60_000, 25)
    return { ms, status: (body as { status?: unknown }).status }
  } finally {
    await child.stop()
  }
}

function verdict(ms: number): string {
  return ms <= TARGET_MS ? 'PASS' : 'FAIL'
}

try {
  const seedRuns: Awaited<ReturnType<typeof seedLoadOnce>>[] = []
  for (let i = 0; i < RUNS; i++) {
    const run = await seedLoadOnce()
    seedRuns.push(run)
    console.error(
      `seed load run ${i + 1}: ${Math.round(run.wallMs)} ms wall (process), ${run.inProcessMs ?? '?'} ms in process`,
    )
  }
  const coldRuns: Awaited<ReturnType<typeof coldStartOnce>>[] = []
  for (let i = 0; i < RUNS; i++) {
    const run = await coldStartOnce()
    coldRuns.push(run)
    console.error(`embedded cold start run ${i + 1}: ${Math.round(run.ms)} ms to 200 (status ${run.status})`)
  }
  const seedMedian = median(seedRuns.map((r) => r.wallMs))
  const seedInProcess = seedRuns.map((r) => r.inProcessMs).filter((ms): ms is number => ms !== null)
  const coldMedian = median(coldRuns.map((r) => r.ms))
  const document = {
    generated_at: new Date().toISOString(),
    runs: RUNS,
    seed_load: {
      median_ms: Math.round(seedMedian),
      in_process_median_ms: seedInProcess.length ? Math.round(median(seedInProcess)) : null,
      runs_ms: seedRuns.map((r) => Math.round(r.wallMs)),
      target_ms: TARGET_MS,
      pass: seedMedian <= TARGET_MS,
    },
    embedded_cold_start: {
      median_ms: Math.round(coldMedian),
      runs_ms: coldRuns.map((r) => Math.round(r.ms)),
      health_status: coldRuns.map((r) => r.status),
      target_ms: TARGET_MS,
      pass: coldMedian <= TARGET_MS,
    },
  }
  console.log(
    `\n${verdict(seedMedian)}  seed load (npm run db:seed into a fresh database): median ${round(seedMedian / 1000, 2)} s (target ≤ 10 s)`,
  )
  console.log(
    `${verdict(coldMedian)}  embedded cold start to first 200 from GET /v1/health: median ${round(coldMedian / 1000, 2)} s (target ≤ 10 s)`,
  )
  console.log(`\n${JSON.stringify(document, null, 2)}`)
} catch (error) {
  console.error('bench:seed failed:', error)
  process.exitCode = 1
}
