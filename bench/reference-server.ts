/**
 * The reference server of `npm run bench`, in bench/reference/: a lean hand-written server doing the same
 * work as /v1/predict and /v1/predict/batch (see its README). The bench runs it as it is: this file
 * installs its dependencies, seeds a database of its own for it, starts it and tidies its Redis keys.
 *
 * Env: BENCH_REFERENCE_DIR (default bench/reference; a relative path is taken from the repository root).
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

export const REFERENCE_DIR = resolve(ROOT, process.env.BENCH_REFERENCE_DIR ?? 'bench/reference')
/** The unlimited key its seed creates. */
export const REFERENCE_API_KEY = 'bench-unlimited-key'
/** The reference server answers GET /hello with a fixed body; it has no /v1/health. */
export const REFERENCE_HEALTH_PATH = '/hello'
/** Its daily counters live in Redis database 14 as rl:<key id>:<yyyymmdd>. */
const REFERENCE_REDIS_URL = redisDatabaseUrl(REDIS_URL, 14)
const REFERENCE_REDIS_PATTERN = 'rl:*'

type Log = (message: string) => void

/** Its folder as messages name it: relative to the repository root (bench/reference/), or absolute. */
export const referenceDirName = () => `${relative(ROOT, REFERENCE_DIR) || '.'}/`

/** How messages and reports name it: "the reference server in bench/reference/". */
export const referenceServerName = () => `the reference server in ${referenceDirName()}`

export function referencePresent(): boolean {
  return existsSync(join(REFERENCE_DIR, 'server.mjs')) && existsSync(join(REFERENCE_DIR, 'seed.mjs'))
}

function redisDatabaseUrl(url: string, database: number): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** True when every dependency in the reference server's package.json has a folder in its node_modules. */
function dependenciesInstalled(): boolean {
  const manifest = JSON.parse(readFileSync(join(REFERENCE_DIR, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>
  }
  return Object.keys(manifest.dependencies ?? {}).every((name) =>
    existsSync(join(REFERENCE_DIR, 'node_modules', name, 'package.json')),
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

/** `npm ci --prefix <reference dir>` when its node_modules are missing or incomplete. */
export async function installReference(log: Log): Promise<void> {
  if (dependenciesInstalled()) return
  const started = performance.now()
  log(`installing the dependencies of ${referenceServerName()} (npm ci --prefix ${referenceDirName()}) …`)
  await runQuietly('npm', ['ci', '--prefix', REFERENCE_DIR, '--no-audit', '--no-fund', '--loglevel=error'])
  log(
    `installed the dependencies of ${referenceServerName()} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  )
}

/**
 * A database of the bench's own (bench_reference_<random>), seeded by the reference server's seed.mjs
 * (with `sites` sites, else its default 18,000); returns its URL and a dropper. Not the seed's default
 * database: the seed drops and recreates the tables, which would pull them from under anyone running the
 * reference server by hand at the same time.
 */
export async function seedReferenceDatabase(
  adminUrl: string,
  log: Log,
  sites?: number,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const database = await createDatabase('bench_reference')
  try {
    const started = performance.now()
    const output = await runQuietly(process.execPath, [join(REFERENCE_DIR, 'seed.mjs')], {
      PG_ADMIN_URL: adminUrl,
      DATABASE_URL: database.url,
      ...(sites === undefined ? {} : { SITES: String(sites) }),
    })
    const summary = output.trim().split('\n').at(-1) ?? ''
    log(`seeded ${database.name} (${Math.round(performance.now() - started)} ms): ${summary}`)
    return database
  } catch (error) {
    await database.drop()
    throw error
  }
}

/** Starts `node server.mjs` with the stored-cube KNN (the variant the targets are set against). */
export function startReference(
  name: string,
  options: { port: number; databaseUrl: string; noRedis: boolean },
): Child {
  return spawnNode(name, join(REFERENCE_DIR, 'server.mjs'), {
    PORT: String(options.port),
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: REFERENCE_REDIS_URL,
    KNN: 'stored',
    WORKERS: '1',
    ...(options.noRedis ? { NO_REDIS: '1' } : {}),
  })
}

/**
 * Remembers the reference server's Redis keys that exist now; the returned function deletes the ones that
 * appeared since (its counters of this run), leaving older ones (somebody else's run) alone.
 */
export async function trackReferenceRedisKeys(): Promise<() => Promise<string>> {
  const before = new Set(await listRedisKeys(REFERENCE_REDIS_URL, REFERENCE_REDIS_PATTERN))
  return async () => {
    const created = (await listRedisKeys(REFERENCE_REDIS_URL, REFERENCE_REDIS_PATTERN)).filter(
      (key) => !before.has(key),
    )
    const deleted = await deleteRedisKeys(REFERENCE_REDIS_URL, created)
    const kept = before.size ? `, left ${before.size} older key(s) alone` : ''
    return `deleted ${deleted} key(s) of the reference server from Redis db 14${kept}`
  }
}
