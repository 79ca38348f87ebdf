import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * The layering of docs/operations.md → Layout, checked on every import of src/ (type-only imports included).
 * A request goes one way: http → rest | graphql | ogc → access (auth, quota, api keys) → domain (services, rules,
 * ports) → model, geo, stats. db implements the domain's ports over PostgreSQL (its nearest-site index in
 * memory built on geo), queue the chunk queue;
 * http-body reads request bodies and writes answers for http and the adapters. The platform (config,
 * logging, observability, types.ts, project-files.ts, version.ts, lru-cache.ts) may be used by any layer and uses none
 * but types.ts. The composition root (wiring) and the command-line tools (cli) wire everything.
 */
const SRC = resolve(import.meta.dirname, '../../src')

const PLATFORM = ['config', 'logging', 'observability', 'types', 'project-files', 'version', 'lru-cache']

/** The folders that compose the others, and so may import any of them. */
const COMPOSITION = ['wiring', 'cli']

/** Which layers each layer may import besides itself and the platform (a layer, a folder in one, or one module's path). */
const ALLOWED: Record<string, readonly string[]> = {
  http: ['http-body', 'domain/errors'],
  explorer: ['http-body', 'domain/errors'],
  /** The page a key's roll link opens: a thin adapter over the key-mail service. */
  'key-pages': ['http-body', 'domain'],
  /** Sending mail (SMTP through nodemailer, or the log in development): the domain's MailSender port. */
  mail: ['domain/ports'],
  'http-body': ['domain/errors'],
  rest: ['http-body', 'access', 'domain'],
  graphql: ['http-body', 'access', 'domain'],
  /** OGC API – Features (/ogc): a thin adapter over the domain's feature collections, as rest is. */
  ogc: ['http-body', 'access', 'domain'],
  access: ['domain/errors', 'domain/ports', 'redis'],
  domain: ['model', 'geo', 'stats'],
  model: ['stats'],
  geo: [],
  stats: [],
  db: ['domain/errors', 'domain/ports', 'access/api-key', 'geo'],
  queue: ['domain/ports', 'redis'],
  /** The job files of the API contract (CSV, NDJSON, GeoJSON): the domain's JobFileFormats port. */
  'job-files': ['domain'],
  /** The survey upload files (CSV, NDJSON, GeoJSON): the domain's SurveyFileFormats port. */
  'survey-files': ['domain', 'job-files'],
  /** Site data files (CSV, GeoJSON, NDJSON, GeoPackage) read, checked and written for site data imports. */
  'site-files': ['geo', 'seed'],
  /** Site data sets as versions: files imported into the store (checked, batched, hashed) and exported. */
  'site-data': ['db', 'site-files'],
  /** Raster files (Cloud-Optimized GeoTIFF) written from a grid of values: no other layer. */
  'raster-files': [],
  /** Report files (PDF) drawn from a report the domain has decided: only that document's types. */
  'report-files': ['domain/reports/report-document'],
  /** Connecting to a single Redis or a Redis Cluster (REDIS_URL, REDIS_CLUSTER_NODES). */
  redis: [],
  /** Synthetic data: the sites (from the reference shapes, loaded into the store) and simulated surveys. */
  seed: ['db', 'domain', 'geo', 'model', 'stats'],
  config: [],
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
  if (COMPOSITION.includes(fromLayer)) return true
  if (fromLayer === targetLayer) return true
  if (PLATFORM.includes(targetLayer)) return !PLATFORM.includes(fromLayer) || targetLayer === 'types'
  const targetPath = relative(SRC, target).replace(/\.ts$/, '')
  return (ALLOWED[fromLayer] ?? []).some(
    (allowed) => targetLayer === allowed || targetPath === allowed || targetPath.startsWith(`${allowed}/`),
  )
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

/** Which folders' modules import which other folders' modules (a folder is a module's own directory). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>()
  for (const file of sourceFiles(SRC)) {
    const from = relative(SRC, dirname(file)) || '.'
    const targets = graph.get(from) ?? new Set<string>()
    graph.set(from, targets)
    for (const target of importsOf(file)) {
      const to = relative(SRC, dirname(target)) || '.'
      if (target.startsWith(SRC) && to !== from) targets.add(to)
    }
  }
  return graph
}

/** Every circle of folders, each written once from its smallest folder name. */
function folderCycles(graph: Map<string, Set<string>>): string[] {
  const cycles = new Set<string>()
  const walk = (start: string, at: string, path: string[]) => {
    for (const next of graph.get(at) ?? []) {
      if (next === start) cycles.add([...path, start].join(' → '))
      else if (!path.includes(next) && next > start) walk(start, next, [...path, next])
    }
  }
  for (const folder of [...graph.keys()].sort()) walk(folder, folder, [folder])
  return [...cycles]
}

describe('layers (docs/operations.md → Layout)', () => {
  it('every import in src/ goes one way down the layers', () => {
    const violations = sourceFiles(SRC).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(SRC) && !mayImport(file, target))
        .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    )
    expect(violations).toEqual([])
  })

  it('src/ imports nothing from outside src/ but packages', () => {
    const outside = sourceFiles(SRC).flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith(SRC) && !target.includes('node_modules'))
        .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    )
    expect(outside).toEqual([])
  })

  it('no folder imports one that imports it back, at any depth', () => {
    expect(folderCycles(folderGraph())).toEqual([])
  })

  it('catches a forbidden import (the check itself works)', () => {
    expect(mayImport(join(SRC, 'domain/x.ts'), join(SRC, 'db/sites.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'model/x.ts'), join(SRC, 'domain/species.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'db/x.ts'), join(SRC, 'graphql/schema.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'rest/x.ts'), join(SRC, 'graphql/errors.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'graphql/x.ts'), join(SRC, 'db/availability.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'rest/x.ts'), join(SRC, 'domain/catalogue.ts'))).toBe(true)
    expect(mayImport(join(SRC, 'model/x.ts'), join(SRC, 'types.ts'))).toBe(true)
    expect(mayImport(join(SRC, 'access/quota/x.ts'), join(SRC, 'rest/route.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'db/x.ts'), join(SRC, 'domain/prediction-service.ts'))).toBe(false)
    expect(mayImport(join(SRC, 'db/x.ts'), join(SRC, 'domain/ports/jobs.ts'))).toBe(true)
    expect(mayImport(join(SRC, 'db/x.ts'), join(SRC, 'domain/ports-extra.ts'))).toBe(false)
  })

  it('finds a circle between folders (the check itself works)', () => {
    const graph = new Map([
      ['a', new Set(['a/b', 'c'])],
      ['a/b', new Set(['a'])],
      ['c', new Set<string>()],
    ])
    expect(folderCycles(graph)).toEqual(['a → a/b → a'])
  })
})
