import { readdirSync, readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, relative } from 'node:path'
import { Writable } from 'node:stream'
import pino from 'pino'
import { MemoryQuotaStore } from '../../src/access/quota/memory-quota-store.ts'
import { loadConfig, type ServerConfig, serverConfig } from '../../src/config/config.ts'
import type { Database } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { createLogger, type Logger } from '../../src/logging/logger.ts'
import type { SurvivalModel } from '../../src/types.ts'
import { type App, createApp } from '../../src/wiring/app.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'

/** The project root and its server sources, for the tests that read the code itself. */
export const ROOT = new URL('../../', import.meta.url).pathname
export const SRC = join(ROOT, 'src')

/** A fresh PostgreSQL database with the schema and the tiers, but no sites (enough for most checks). */
export async function createMigratedDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase()
  await migrate(db.sql)
  return db
}

export interface RunningApp {
  app: App
  url: string
  close(): Promise<void>
}

export interface AppOptions {
  database: Database
  /** Environment settings on top of the production defaults (`loadConfig` of an empty environment). */
  env?: Record<string, string>
  model?: SurvivalModel
  logger?: Logger
  keyCacheMs?: number
  bodyTimeoutMs?: number
}

/**
 * The whole app as `npm start` wires it, from the validated configuration with its production defaults,
 * on a random loopback port; quotas in this process (the checks here are not about Redis).
 */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const config: ServerConfig = {
    ...serverConfig(loadConfig({ EXPLORER: 'false', ...options.env })),
    REDIS_URL: undefined,
  }
  const app = createApp({
    config,
    database: options.database,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    model: options.model,
    quotaStore: new MemoryQuotaStore(),
    keyCacheMs: options.keyCacheMs,
    bodyTimeoutMs: options.bodyTimeoutMs,
    jobQueue: 'memory',
  })
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as AddressInfo
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      app.server.closeAllConnections()
      await app.close()
    },
  }
}

/** A pino logger writing parsed JSON lines into `lines`, with the service's own redaction. */
export function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: pino({ level: 'info' }, sink), lines }
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/**
 * One request over a fresh socket, exactly as written: any method, the path byte for byte (no URL
 * normalisation, unlike fetch), and a body in pieces (chunked when no Content-Length is given).
 */
export function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  body: (string | Buffer)[] = [],
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const req = httpRequest(
      { host: target.hostname, port: target.port, method, path, headers, agent: false },
      (res) => {
        const parts: Buffer[] = []
        res.on('data', (chunk: Buffer) => parts.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(parts).toString('utf8'),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    for (const piece of body) req.write(piece)
    req.end()
  })
}

/** Every TypeScript file under `dir` (relative to the project root), tests left out. */
export function sourceFiles(dir = SRC): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = []
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
        found.push({ path: relative(ROOT, full), text: readFileSync(full, 'utf8') })
    }
  }
  walk(dir)
  return found
}

/** Every object key anywhere in a JSON value, and every string in it. */
export function jsonParts(value: unknown): { keys: string[]; strings: string[] } {
  const keys: string[] = []
  const strings: string[] = []
  const visit = (node: unknown) => {
    if (typeof node === 'string') strings.push(node)
    else if (Array.isArray(node)) node.forEach(visit)
    else if (node && typeof node === 'object')
      for (const [key, inner] of Object.entries(node)) {
        keys.push(key)
        visit(inner)
      }
  }
  visit(value)
  return { keys, strings }
}
