import { gzipSync } from 'node:zlib'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { issueKey } from '../support/fixtures.ts'
import { createMigratedDatabase, type RunningApp, raw, sourceFiles, startApp } from './support.ts'

/**
 * OWASP API10, unsafe consumption of APIs: what the service takes in from elsewhere is handled as
 * untrusted. Here: SQL text is never made from data (every value goes to PostgreSQL as a parameter), and
 * an uploaded job file is bounded however it is compressed.
 */

/** `x.unsafe(arg)` calls whose argument is not a module constant string or a migration file's text. */
function unsafeSql(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const constants = new Set<string>()
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isStringLiteral(node.initializer) || ts.isNoSubstitutionTemplateLiteral(node.initializer)) &&
      ts.isVariableDeclarationList(node.parent) &&
      node.parent.flags & ts.NodeFlags.Const
    )
      constants.add(node.name.text)
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'unsafe'
    ) {
      const [argument] = node.arguments
      const text = argument?.getText(source) ?? ''
      const constant = argument && ts.isIdentifier(argument) && constants.has(argument.text)
      const migration = text === 'migration.statements' && path === 'src/db/migrate.ts'
      if (!constant && !migration) found.push(`${path}: unsafe(${text})`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('API10: PostgreSQL is given values only as parameters', () => {
  it('every sql.unsafe() in src/ runs a constant string or a migration file, never text made from data', () => {
    const files = sourceFiles()
    const calls = files.flatMap(({ path, text }) => (/\.unsafe\(/.test(text) ? [path] : []))
    expect(calls).toContain('src/db/keys.ts')
    expect(files.flatMap(({ path, text }) => unsafeSql(path, text))).toEqual([])
  })

  it('the check itself refuses interpolated and variable SQL', () => {
    const probe = `
      const COLUMNS = 'id, tier'
      export function find(sql: any, name: string, table: string) {
        sql.unsafe(COLUMNS)
        sql.unsafe(\`SELECT * FROM \${table}\`)
        sql.unsafe('SELECT ' + name)
        sql.unsafe(table)
      }`
    expect(unsafeSql('src/db/probe.ts', probe)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text the check reports
      'src/db/probe.ts: unsafe(`SELECT * FROM ${table}`)',
      "src/db/probe.ts: unsafe('SELECT ' + name)",
      'src/db/probe.ts: unsafe(table)',
    ])
  })
})

describe('API10: uploaded job files', () => {
  let db: TestDatabase
  let running: RunningApp
  let key: string

  beforeAll(async () => {
    db = await createMigratedDatabase()
    running = await startApp({ database: db })
    key = (await issueKey(db, 'mycel')).key
  })

  afterAll(async () => {
    await running?.close()
    await db?.drop()
  })

  it('a gzip bomb (32 KB that inflates to 32 MiB) is refused at its first oversized record, and nothing is kept', async () => {
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from('latitude,longitude,species_code,planting_method\n44.6,-123.6,PSME,'),
        Buffer.alloc(32 * 1024 * 1024, 'a'),
      ]),
    )
    expect(bomb.length).toBeLessThan(64 * 1024)
    const started = performance.now()
    const response = await raw(
      running.url,
      'POST',
      '/v1/jobs',
      {
        'x-api-key': key,
        'content-type': 'text/csv',
        'content-encoding': 'gzip',
        'content-length': bomb.length,
      },
      [bomb],
    )
    expect(response.status, response.text).toBe(400)
    expect(JSON.parse(response.text).error.code).toBe('invalid_request')
    expect(performance.now() - started).toBeLessThan(5000)
    const [jobs] = await db.sql`SELECT count(*)::int AS n FROM jobs`
    expect(jobs?.n).toBe(0)
  })
})
