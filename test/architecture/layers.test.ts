import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * The layering of docs/operations.md → Layout (the architecture's "Layers"), checked on every import of src/ (type-only
 * imports included). A request goes one way: http → rest | graphql → access (auth, keys, quota) →
 * domain → model, geo, stats and the store ports of types.ts, implemented in db. platform (config, logging,
 * observability) and types.ts may be used by any layer and use none. The composition root (src/*.ts:
 * app, serve, main, cluster, store-ports) and the command-line tools (cli) wire everything.
 */
const SRC = resolve(import.meta.dirname, '../../src')

const PLATFORM = ['config', 'logging', 'observability', 'types', 'project-files', 'version']

/** Which layers each layer may import besides itself and the platform. */
const ALLOWED: Record<string, readonly string[]> = {
  http: ['http-io', 'domain/errors'],
  explorer: ['http-io', 'domain/errors'],
  queue: ['redis'],
  'http-io': ['domain/errors'],
  rest: ['http-io', 'auth', 'quota', 'domain'],
  graphql: ['http-io', 'auth', 'quota', 'domain'],
  auth: ['quota', 'keys/api-key', 'domain/errors'],
  quota: ['auth', 'domain/errors', 'redis'],
  keys: ['db'],
  domain: ['geo', 'stats'],
  model: ['stats'],
  geo: [],
  stats: [],
  db: ['keys/api-key'],
  config: [],
  /** Connecting to a single Redis or a Redis Cluster (REDIS_URL, REDIS_CLUSTER_NODES). */
  redis: [],
  logging: [],
  observability: [],
}

/** The layer a src/ module belongs to: its folder, or (for the files directly in src/) its name. */
function layerOf(file: string): string {
  const path = relative(SRC, file).replace(/\.ts$/, '')
  return path.includes('/') ? (path.split('/')[0] as string) : path
}

function mayImport(from: string, target: string): boolean {
  const fromLayer = layerOf(from)
  const targetLayer = layerOf(target)
  if (!(fromLayer in ALLOWED)) return true // the composition root and cli
  if (fromLayer === targetLayer) return true
  if (PLATFORM.includes(targetLayer)) return !PLATFORM.includes(fromLayer) || targetLayer === 'types'
  const targetPath = relative(SRC, target).replace(/\.ts$/, '')
  return (ALLOWED[fromLayer] ?? []).some((allowed) => targetLayer === allowed || targetPath === allowed)
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** Every relative import of a file, resolved to a path (type-only and dynamic imports included). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name))
}

describe('layers (architecture.md)', () => {
  it('every import in src/ goes one way down the layers', () => {
    const violations = sourceFiles(SRC).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(SRC) && !mayImport(file, target))
        .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    )
    expect(violations).toEqual([])
  })

  it('src/ imports nothing from test/, bench/ or seed/ except the embedded store seeding itself', () => {
    const outside = sourceFiles(SRC).flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith(SRC) && !target.includes('node_modules'))
        .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    )
    const seedsTheStore = /^(serve|cli\/[a-z-]+)\.ts → \.\.\/seed\/seed-all\.ts$/
    expect(outside.filter((edge) => !seedsTheStore.test(edge))).toEqual([])
  })

  it('catches a forbidden import (the check itself works)', () => {
    expect(mayImport(join(SRC, 'domain/x.ts'), join(SRC, 'db/sites.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'model/x.ts'), join(SRC, 'domain/species.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'db/x.ts'), join(SRC, 'graphql/schema.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'rest/x.ts'), join(SRC, 'graphql/errors.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'graphql/x.ts'), join(SRC, 'db/availability.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'rest/x.ts'), join(SRC, 'domain/catalogue.ts'))).toBe(true)
    expect(mayImport(join(SRC, 'model/x.ts'), join(SRC, 'types.ts'))).toBe(true)
  })
})
