import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts'
import { manySites } from '../../test/support/many-sites.ts'
import { killProcess } from '../../test/support/process.ts'
import { eventually } from '../../test/support/waiting.ts'
import { migrate } from '../db/migrate.ts'
import { activeSiteVersion } from '../db/site-data-versions.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { seedAll } from '../seed/seed-all.ts'
import { csvChunks, writeSiteFile } from '../site-files/site-writers.ts'
import type { Site } from '../types.ts'

/** `npm run sites`: src/cli/sites.ts in a child process, against a database of its own. */

const SYNTHETIC = generateSites()
const SAMPLE = SYNTHETIC.filter((_, index) => index % 40 === 0)
const ENTRY = ['--import', 'tsx', 'src/cli/sites.ts']
/** A progress line once a batch is in the staging table. */
const LOADED = /importing: .* loaded in [1-9][\d,]* batch/

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

describe('npm run sites (CLI)', () => {
  let db: TestDatabase
  let dir: string
  let synthetic: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sites-cli-'))
    db = await createTestDatabase()
    await migrate(db.sql)
    await seedAll(db.sql)
    synthetic = (await activeSiteVersion(db.sql))?.version as string
  }, 180_000)
  afterAll(async () => {
    await db?.drop()
    await rm(dir, { recursive: true, force: true })
  })

  const env = (extra: Record<string, string | undefined> = {}) => ({
    ...process.env,
    DATABASE_URL: db.url,
    LOG_LEVEL: 'warn',
    ...extra,
  })

  /** Runs the CLI to its end: its exit code and output, whatever the code. */
  const sites = (args: string[], extra: Record<string, string | undefined> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(process.execPath, [...ENTRY, ...args], { env: env(extra) }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      )
    })

  /** The CLI started, its stderr collected as it comes. */
  const started = (
    args: string[],
  ): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } => {
    const child = spawn(process.execPath, [...ENTRY, ...args], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    child.stdout?.resume()
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    return { child, stderr: () => stderr, exited }
  }

  const file = async (name: string, content: string): Promise<string> => {
    const path = join(dir, name)
    await writeFile(path, content)
    return path
  }

  const csvText = async (sites: readonly Site[]) => {
    let text = ''
    for await (const chunk of csvChunks(sites)) text += chunk
    return text
  }

  const leftovers = async () => ({
    tables: (await db.sql`SELECT relname FROM pg_class WHERE relname LIKE 'sites_import_%'`).length,
    imports: (await db.sql`SELECT staging FROM site_data_imports`).length,
  })

  it('prints its usage with --help; refuses an unknown command, a missing argument, no DATABASE_URL', async () => {
    const help = await new Promise<Run>((resolve) =>
      execFile('npm', ['run', '--silent', 'sites', '--', '--help'], { env: env() }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, stdout, stderr }),
      ),
    )
    expect(help.code).toBe(0)
    for (const command of ['import', 'export', 'list', 'activate', 'rollback', 'drop'])
      expect(help.stdout).toContain(`${command} `)
    expect((await sites(['import', '--help'])).stdout).toContain('--skip-invalid')

    const unknown = await sites(['frobnicate'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("unknown command 'frobnicate'")
    const missing = await sites(['activate'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("missing required argument 'version'")
    const nowhere = await sites(['list'], { DATABASE_URL: '' })
    expect(nowhere).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('sites: DATABASE_URL is not set'),
    })
  })

  it('imports a file, says how to activate it, and lists, activates, rolls back and drops versions', async () => {
    const path = await file('few.csv', await csvText(SAMPLE))
    const imported = await sites(['import', path])
    expect(imported.code).toBe(0)
    const version = /imported as (sites_[0-9a-f]{12}), a new version \(not active\)/.exec(
      imported.stdout,
    )?.[1]
    expect(version).toBeDefined()
    expect(imported.stdout).toContain(`Activate it with: npm run sites -- activate ${version}`)
    expect(imported.stdout).toMatch(/rows loaded +448\n/)
    expect(imported.stderr).toMatch(/importing: 448 rows loaded in 1 batch; indexing them/)

    const again = JSON.parse((await sites(['import', path, '--json', '--no-progress'])).stdout)
    expect(again).toMatchObject({
      file: path,
      format: 'csv',
      outcome: 'kept',
      version,
      rows_read: SAMPLE.length,
      rows_loaded: SAMPLE.length,
      rows_invalid: 0,
      problems: [],
      active: false,
      activate_with: `npm run sites -- activate ${version}`,
    })

    const listed = await sites(['list'])
    expect(listed.stdout).toMatch(new RegExp(`^\\*\\s+${synthetic}\\s+17,884 `, 'm'))
    expect(listed.stdout).toMatch(new RegExp(`^\\s+${version}\\s+448 .* few\\.csv$`, 'm'))
    const json = JSON.parse((await sites(['list', '--json'])).stdout)
    expect(json.map((v: { version: string; active: boolean }) => [v.version, v.active])).toEqual([
      [synthetic, true],
      [version, false],
    ])
    expect(Object.keys(json[1]).sort()).toEqual([
      'activated_at',
      'active',
      'bounds',
      'defaults',
      'imported_at',
      'rows',
      'source',
      'version',
    ])

    expect(await sites(['drop', version as string])).toMatchObject({
      code: 0,
      stdout: `${version} dropped\n`,
    })
    expect((await sites(['import', path, '--activate', '--json'])).stdout).toContain('"activated":true')
    expect((await activeSiteVersion(db.sql))?.version).toBe(version)
    expect(await sites(['activate', version as string])).toMatchObject({
      code: 0,
      stdout: `${version} is active already\n`,
    })

    const refusedDrop = await sites(['drop', version as string])
    expect(refusedDrop).toMatchObject({
      code: 1,
      stderr: `sites: ${version} is active: activate another first\n`,
    })
    expect(await sites(['rollback'])).toMatchObject({
      code: 0,
      stdout: `${synthetic} is active again, in place of ${version}\n`,
    })
    expect(await sites(['activate', version as string])).toMatchObject({
      code: 0,
      stdout: `${version} is active (448 sites), in place of ${synthetic}\n`,
    })
    expect(JSON.parse((await sites(['activate', synthetic, '--json'])).stdout)).toMatchObject({
      version: synthetic,
      active: true,
      rows: SYNTHETIC.length,
    })
    expect((await sites(['drop', version as string])).code).toBe(0)
    expect(await sites(['rollback'])).toMatchObject({
      code: 1,
      stderr: `sites: the earlier version ${version} was dropped\n`,
    })

    expect(await sites(['activate', 'sites_000000000000'])).toMatchObject({
      code: 1,
      stderr: 'sites: no site data version sites_000000000000\n',
    })
    expect(await sites(['drop', 'sites_000000000000'])).toMatchObject({
      code: 1,
      stderr: 'sites: no site data version sites_000000000000\n',
    })
    expect(await sites(['activate', 'sites'])).toMatchObject({
      code: 1,
      stderr: 'sites: sites is not a site data version name\n',
    })
    expect((await activeSiteVersion(db.sql))?.version).toBe(synthetic)
  })

  it('refuses a bad file with its rows, a missing file, a bad map; the active data stay', async () => {
    const lines = (await csvText(SAMPLE)).split('\n')
    const header = (lines[0] as string).split(',')
    const cells = (lines[3] as string).split(',')
    cells[header.indexOf('slope_deg')] = '95'
    lines[3] = cells.join(',')
    const bad = await file('bad.csv', lines.join('\n'))
    const refused = await sites(['import', bad])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toContain(`${bad} (CSV): refused: 1 row breaks the rules: nothing was kept`)
    expect(refused.stdout).toContain(
      `row 3 (id ${SAMPLE[2]?.id}): slope_deg "95": range: slope_deg must be 0–90 degrees`,
    )
    expect(refused.stdout).toContain('Nothing was stored: the active site data are unchanged.')
    const json = JSON.parse((await sites(['import', bad, '--json'])).stdout)
    expect(json.problems).toEqual([
      {
        row: 3,
        feature_id: String(SAMPLE[2]?.id),
        field: 'slope_deg',
        value: '95',
        rule: 'range',
        message: 'slope_deg must be 0–90 degrees',
      },
    ])
    const skipped = await sites(['import', bad, '--skip-invalid', '--json'])
    expect(skipped.code).toBe(0)
    expect(JSON.parse(skipped.stdout)).toMatchObject({
      outcome: 'created',
      rows_loaded: SAMPLE.length - 1,
      rows_invalid: 1,
      problems: [{ row: 3, rule: 'range' }],
    })

    const missing = await sites(['import', join(dir, 'nowhere.csv')])
    expect(missing.code).toBe(1)
    expect(missing.stdout).toContain('nowhere.csv: no such file')

    const map = await sites(['import', bad, '--map', join(dir, 'no-map.json')])
    expect(map.code).toBe(1)
    expect(map.stderr).toMatch(/^sites: .*no-map\.json: the column map cannot be read/)
    const wrong = await file('wrong-map.json', '{"Slope": "slop_deg"}')
    expect((await sites(['import', bad, '--map', wrong])).stderr).toContain(
      'maps "Slope" to "slop_deg", which is not a site column (did you mean slope_deg?)',
    )
    const format = await sites(['import', bad, '--format', 'shp'])
    expect(format.code).toBe(1)
    expect(format.stderr).toContain("argument 'shp' is invalid")

    expect((await activeSiteVersion(db.sql))?.version).toBe(synthetic)
    expect(await leftovers()).toEqual({ tables: 0, imports: 0 })
  })

  it('exports the active version, or another, to any format; refuses to overwrite unless told', async () => {
    const path = join(dir, 'active.geojson')
    expect(await sites(['export', path])).toMatchObject({
      code: 0,
      stdout: `${path}: 17,884 sites of ${synthetic} written (geojson)\n`,
    })
    expect(await sites(['export', path])).toMatchObject({
      code: 1,
      stderr: `sites: ${path}: exists already: choose another name, or overwrite it\n`,
    })
    expect(JSON.parse((await sites(['export', path, '--overwrite', '--json'])).stdout)).toEqual({
      file: path,
      format: 'geojson',
      version: synthetic,
      rows: SYNTHETIC.length,
    })
    const other = join(dir, 'no-extension')
    expect(JSON.parse((await sites(['export', other, '--format', 'ndjson', '--json'])).stdout)).toMatchObject(
      {
        format: 'ndjson',
      },
    )
    expect(await sites(['export', join(dir, 'x.csv'), '--version', 'sites_000000000000'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('sites: no site data version sites_000000000000'),
    })
    const back = JSON.parse((await sites(['import', path, '--json', '--no-progress'])).stdout)
    expect(back).toMatchObject({ outcome: 'kept', version: synthetic, active: true })
  })

  describe('an import stopped half way', () => {
    let big: string
    beforeAll(async () => {
      big = join(dir, 'big.csv')
      await writeSiteFile(manySites(SYNTHETIC, 150_000), big)
    }, 120_000)

    it('killed (kill -9): the active data stay; the next list drops what it left', {
      timeout: 120_000,
    }, async () => {
      const run = started(['import', big, '--skip-invalid', '--activate'])
      expect(await eventually(() => LOADED.test(run.stderr()), 60_000)).toBe(true)
      await killProcess(run.child)
      expect((await activeSiteVersion(db.sql))?.version).toBe(synthetic)
      expect(await leftovers()).toEqual({ tables: 1, imports: 1 })

      const listed = await sites(['list'])
      expect(listed.code).toBe(0)
      expect(listed.stderr).toContain('sites: dropped the staging table of 1 import whose process had ended')
      expect(await leftovers()).toEqual({ tables: 0, imports: 0 })
      expect((await activeSiteVersion(db.sql))?.version).toBe(synthetic)
    })

    it('interrupted (SIGINT, SIGTERM): it gives its staging table up itself and exits 130 or 143', {
      timeout: 120_000,
    }, async () => {
      for (const [signal, code] of [
        ['SIGINT', 130],
        ['SIGTERM', 143],
      ] as const) {
        const run = started(['import', big, '--skip-invalid', '--activate'])
        expect(await eventually(() => LOADED.test(run.stderr()), 60_000)).toBe(true)
        run.child.kill(signal)
        expect(await run.exited).toBe(code)
        expect(run.stderr()).toContain(`sites: ${signal}: giving the import up`)
        expect(await leftovers()).toEqual({ tables: 0, imports: 0 })
        expect((await activeSiteVersion(db.sql))?.version).toBe(synthetic)
      }
    })
  })
})
