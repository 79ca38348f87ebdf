/**
 * The reference floor of `npm run bench`: ../shared/bench-floor (a lean hand-written server doing the same
 * work as /v1/predict and /v1/predict/batch; see its README). Only run from here, never copied: this file
 * installs its dependencies, seeds a database of its own for it, starts it and tidies its Redis keys.
 *
 * Env: BENCH_FLOOR_DIR (default ../shared/bench-floor beside the project).
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import {
  type Child,
  createDatabase,
  deleteRedisKeys,
  listRedisKeys,
  REDIS_URL,
  ROOT,
  spawnNode,
} from './support.ts'

export const FLOOR_DIR = resolve(ROOT, process.env.BENCH_FLOOR_DIR ?? '../shared/bench-floor')
/** The unlimited key its seed creates. */
export const FLOOR_API_KEY = 'bench-unlimited-key'
/** The floor answers GET /hello with a fixed body; it has no /v1/health. */
export const FLOOR_HEALTH_PATH = '/hello'
/** Its daily counters live in Redis database 14 as rl:<key id>:<yyyymmdd>. */
const FLOOR_REDIS_URL = redisDatabaseUrl(REDIS_URL, 14)
const FLOOR_REDIS_PATTERN = 'rl:*'

type Log = (message: string) => void

/** The folder as docs/performance.md and messages name it (../shared/bench-floor). */
export const floorDirName = () => relative(ROOT, FLOOR_DIR) || FLOOR_DIR

export function floorPresent(): boolean {
  return existsSync(join(FLOOR_DIR, 'server.mjs')) && existsSync(join(FLOOR_DIR, 'seed.mjs'))
}

function redisDatabaseUrl(url: string, database: number): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** True when every dependency in the floor's package.json has a folder in its node_modules. */
function dependenciesInstalled(): boolean {
  const manifest = JSON.parse(readFileSync(join(FLOOR_DIR, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>
  }
  return Object.keys(manifest.dependencies ?? {}).every((name) =>
    existsSync(join(FLOOR_DIR, 'node_modules', name, 'package.json')),
  )
}

/** Runs a command with its output captured; rejects with that output when it fails. */
function runQuietly(command: string, args: readonly string[], env: Record<string, string> = {}) {
  return new Promise<string>((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8')
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (code === 0) resolvePromise(output)
      else
        reject(new Error(`${command} ${args.join(' ')} failed (${code ?? signal}):\n${output.slice(-4000)}`))
    })
  })
}

/** `npm ci --prefix <floor>` when its node_modules are missing or incomplete. */
export async function installFloor(log: Log): Promise<void> {
  if (dependenciesInstalled()) return
  const started = performance.now()
  log(`installing the floor's dependencies (npm ci --prefix ${floorDirName()}) …`)
  await runQuietly('npm', ['ci', '--prefix', FLOOR_DIR, '--no-audit', '--no-fund', '--loglevel=error'])
  log(`installed the floor's dependencies (${((performance.now() - started) / 1000).toFixed(1)} s)`)
}

/**
 * A database of the bench's own (bench_floor_<random>), seeded by the floor's seed.mjs; returns its URL and
 * a dropper. Not the floor's default bench_floor: its seed drops and recreates the tables, which would pull
 * them from under anyone running the floor by hand at the same time.
 */
export async function seedFloorDatabase(
  adminUrl: string,
  log: Log,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const database = await createDatabase('bench_floor')
  try {
    const started = performance.now()
    const output = await runQuietly(process.execPath, [join(FLOOR_DIR, 'seed.mjs')], {
      PG_ADMIN_URL: adminUrl,
      DATABASE_URL: database.url,
    })
    const summary = output.trim().split('\n').at(-1) ?? ''
    log(`seeded ${database.name} (${Math.round(performance.now() - started)} ms): ${summary}`)
    return database
  } catch (error) {
    await database.drop()
    throw error
  }
}

/** Starts `node server.mjs` with the stored-cube KNN (the variant the issue compares with). */
export function startFloor(
  name: string,
  options: { port: number; databaseUrl: string; noRedis: boolean },
): Child {
  return spawnNode(name, join(FLOOR_DIR, 'server.mjs'), {
    PORT: String(options.port),
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: FLOOR_REDIS_URL,
    KNN: 'stored',
    WORKERS: '1',
    ...(options.noRedis ? { NO_REDIS: '1' } : {}),
  })
}

/**
 * Remembers the floor's Redis keys that exist now; the returned function deletes the ones that appeared
 * since (the floor's counters of this run), leaving older ones (somebody else's run) alone.
 */
export async function trackFloorRedisKeys(): Promise<() => Promise<string>> {
  const before = new Set(await listRedisKeys(FLOOR_REDIS_URL, FLOOR_REDIS_PATTERN))
  return async () => {
    const created = (await listRedisKeys(FLOOR_REDIS_URL, FLOOR_REDIS_PATTERN)).filter(
      (key) => !before.has(key),
    )
    const deleted = await deleteRedisKeys(FLOOR_REDIS_URL, created)
    const kept = before.size ? `, left ${before.size} older key(s) alone` : ''
    return `deleted ${deleted} floor key(s) from Redis db 14${kept}`
  }
}
