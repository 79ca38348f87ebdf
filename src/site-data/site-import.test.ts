import { copyFile, mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, openEmbeddedDatabase, type TestDatabase } from '../../test/support/database.ts'
import type { Database } from '../db/connect.ts'
import { migrate } from '../db/migrate.ts'
import { activeSiteVersion, listSiteVersions } from '../db/site-data-versions.ts'
import { findNearestSites, siteRevision } from '../db/sites.ts'
import { isInCoverage } from '../geo/coverage.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { createRandom } from '../seed/random.ts'
import { seedAll } from '../seed/seed-all.ts'
import { SITE_FILE_FORMATS } from '../site-files/site-readers.ts'
import { csvChunks, featureJson, writeSiteFile } from '../site-files/site-writers.ts'
import type { Coordinates, Site } from '../types.ts'
import { exportSiteVersion } from './site-export.ts'
import { importSiteFile, type SiteImportProgress, type SiteImportReport } from './site-import.ts'

/*
 * Site files into versions and back, against PostgreSQL (and once the embedded PGlite): the synthetic
 * sites exported in every format and imported again are the same version and answer the same; a bad
 * file is refused naming its rows, and leaves the active data and no staging table behind.
 */

const SYNTHETIC = generateSites()
/** Every 40th synthetic site: 448 valid rows, several batches of 100. */
const SAMPLE = SYNTHETIC.filter((_, index) => index % 40 === 0)
const BATCH = 100
/** The row of the second bad row of the --skip-invalid file: after three batches. */
const LATE_ROW = 333

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'site-import-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}

async function csvText(sites: readonly Site[]): Promise<string> {
  let text = ''
  for await (const chunk of csvChunks(sites)) text += chunk
  return text
}

/** A CSV of `sites` with `column` of row `row` (from 1) set to `value`. */
async function csvWith(sites: readonly Site[], row: number, column: string, value: string): Promise<string> {
  const lines = (await csvText(sites)).split('\n')
  const at = (lines[0] as string).split(',').indexOf(column)
  const cells = (lines[row] as string).split(',')
  cells[at] = value
  lines[row] = cells.join(',')
  return lines.join('\n')
}

/** `count` points inside the coverage region, the same on every run. */
function coveragePoints(count: number): Coordinates[] {
  const random = createRandom(43)
  const points: Coordinates[] = []
  while (points.length < count) {
    const latitude = 42 + random() * 7
    const longitude = -124.8 + random() * 8.3
    if (isInCoverage(latitude, longitude)) points.push({ latitude, longitude })
  }
  return points
}

/** What a refusal must leave: the same active version, no staging table, no import under way. */
async function expectNothingKept(sql: Database['sql'], activeBefore: string | null): Promise<void> {
  expect((await activeSiteVersion(sql))?.version ?? null).toBe(activeBefore)
  expect(await sql`SELECT relname FROM pg_class WHERE relname LIKE 'sites_import_%'`).toEqual([])
  expect(await sql`SELECT staging FROM site_data_imports`).toEqual([])
}

const brief = (report: SiteImportReport) =>
  report.problems.map(({ row, featureId, field, rule }) => ({ row, featureId, field, rule }))

describe('site files into versions (PostgreSQL)', () => {
  let seeded: TestDatabase
  let empty: TestDatabase
  let synthetic: string
  beforeAll(async () => {
    ;[seeded, empty] = await Promise.all([createTestDatabase(), createTestDatabase()])
    await Promise.all([migrate(seeded.sql), migrate(empty.sql)])
    await seedAll(seeded.sql)
    synthetic = (await activeSiteVersion(seeded.sql))?.version as string
  }, 180_000)
  afterAll(() => Promise.all([seeded?.drop(), empty?.drop()]))

  it('exports the synthetic sites in every format; each imports back as the same version, answering the same', {
    timeout: 300_000,
  }, async () => {
    const points = coveragePoints(1000)
    const before = await findNearestSites(seeded.sql, points, 10)
    expect(before.nearest.filter(Boolean).length).toBeGreaterThan(300)

    for (const format of SITE_FILE_FORMATS) {
      const path = join(dir, `synthetic.${format}`)
      const written = await exportSiteVersion(seeded.sql, path)
      expect(written).toEqual({ path, format, version: synthetic, rows: SYNTHETIC.length })

      // Into the database it came from: the same rows, so the same version, kept once.
      const again = await importSiteFile(seeded.sql, path)
      expect(again).toMatchObject({
        outcome: 'kept',
        version: synthetic,
        rowsRead: SYNTHETIC.length,
        rowsRefused: 0,
        active: true,
        activated: false,
      })
      expect(again.defaulted).toEqual([])

      // Into a database without it: a new version of the same name, which answers as the synthetic.
      const imported = await importSiteFile(empty.sql, path, { activate: true })
      expect(imported).toMatchObject({ version: synthetic, active: true, rowsLoaded: SYNTHETIC.length })
      expect(imported.outcome).toBe(format === SITE_FILE_FORMATS[0] ? 'created' : 'kept')
      const after = await findNearestSites(empty.sql, points, 10)
      expect(after.nearest).toEqual(before.nearest)
    }
    expect(await listSiteVersions(seeded.sql)).toHaveLength(1)
    expect((await listSiteVersions(empty.sql)).map((v) => [v.version, v.source])).toEqual([
      [synthetic, 'synthetic.csv'],
    ])
    await expectNothingKept(seeded.sql, synthetic)
  })

  describe('refuses a bad file, naming its rows, and keeps nothing', () => {
    const refused = async (path: string, options: Parameters<typeof importSiteFile>[2] = {}) => {
      const report = await importSiteFile(seeded.sql, path, { batchRows: BATCH, ...options })
      expect(report.outcome).toBe('refused')
      expect(report.version).toBeNull()
      expect(report.rowsLoaded).toBe(0)
      await expectNothingKept(seeded.sql, synthetic)
      return report
    }
    // A bad row after three batches: the staging table is begun, then given up.
    const LATE = 350

    it('a wrong type and an out-of-range slope', async () => {
      const typed = await refused(await file('type.csv', await csvWith(SAMPLE, LATE, 'slope_deg', 'steep')))
      expect(typed.problems).toEqual([
        {
          row: LATE,
          featureId: String(SAMPLE[LATE - 1]?.id),
          field: 'slope_deg',
          value: 'steep',
          rule: 'type',
          message: 'slope_deg must be a number',
        },
      ])
      expect(typed.reason).toBe('1 row breaks the rules: nothing was kept (--skip-invalid loads the others)')
      expect(typed.rowsRead).toBe(SAMPLE.length)
      const ranged = await refused(await file('range.csv', await csvWith(SAMPLE, LATE, 'slope_deg', '95')))
      expect(ranged.problems).toMatchObject([
        {
          row: LATE,
          field: 'slope_deg',
          value: '95',
          rule: 'range',
          message: 'slope_deg must be 0–90 degrees',
        },
      ])
    })

    it('a point in the sea', async () => {
      const features = SAMPLE.map((site, index) =>
        featureJson(index === LATE - 1 ? { ...site, latitude: 45.5, longitude: -125.2 } : site),
      )
      const path = await file(
        'sea.geojson',
        `{"type":"FeatureCollection","features":[${features.join(',\n')}]}`,
      )
      expect(brief(await refused(path))).toEqual([
        {
          row: LATE,
          featureId: String(SAMPLE[LATE - 1]?.id),
          field: 'latitude,longitude',
          rule: 'outside_coverage',
        },
      ])
    })

    it('a missing column, on every row, the problems listed bounded and the rest counted', async () => {
      const lines = (await csvText(SAMPLE)).trimEnd().split('\n')
      const at = (lines[0] as string).split(',').indexOf('soil_depth_cm')
      const path = await file(
        'no-soil.csv',
        lines.map((line) => line.split(',').toSpliced(at, 1).join(',')).join('\n'),
      )
      const report = await refused(path, { listedProblems: 10 })
      expect(report.missingColumns).toEqual(['soil_depth_cm'])
      expect(brief(report)).toEqual(
        Array.from({ length: 10 }, (_, i) => ({
          row: i + 1,
          featureId: String(SAMPLE[i]?.id),
          field: 'soil_depth_cm',
          rule: 'required',
        })),
      )
      expect(report.problemsNotListed).toBe(SAMPLE.length - 10)
      expect(report.problemsByRule).toEqual({ required: SAMPLE.length })
      expect(report.rowsRefused).toBe(SAMPLE.length)
    })

    it('a duplicate point', async () => {
      const lines = SAMPLE.map((site) => featureJson(site))
      lines.splice(LATE, 0, featureJson({ ...(SAMPLE[3] as Site), id: 'again', elevationM: 100 }))
      const report = await refused(await file('twice.ndjson', `${lines.join('\n')}\n`))
      expect(brief(report)).toEqual([
        { row: LATE + 1, featureId: 'again', field: 'latitude,longitude', rule: 'duplicate' },
      ])
      expect(report.problems[0]?.message).toBe("the point is row 4's (the same to 5 decimals, about 1 m)")
    })

    it('an empty file, a truncated GeoPackage, a file that is not what its extension says, no file', async () => {
      const fileError = async (path: string) => (await refused(path)).fileError?.message
      expect(await fileError(await file('empty.csv', ''))).toMatch(/empty\.csv: is empty$/)
      const gpkg = join(dir, 'whole.gpkg')
      await writeSiteFile(SAMPLE, gpkg)
      const cut = join(dir, 'cut.gpkg')
      await copyFile(gpkg, cut)
      await truncate(cut, (await stat(gpkg)).size - 4096)
      expect(await fileError(cut)).toMatch(/cut\.gpkg: is cut short: \d+ bytes/)
      expect(await fileError(await file('csv.geojson', await csvText(SAMPLE)))).toMatch(
        /csv\.geojson: is not a GeoJSON FeatureCollection: it looks like text/,
      )
      expect(await fileError(join(dir, 'nowhere.csv'))).toMatch(/nowhere\.csv: no such file$/)
      expect(await fileError(await file('sites.shp', 'x'))).toMatch(/has an extension of no site file format/)
    })

    it('a file damaged after some batches: the rows before are read, nothing is kept', async () => {
      const features = SAMPLE.map((site) => featureJson(site))
      const text = `{"type":"FeatureCollection","features":[${features.join(',\n')}]}`
      const report = await refused(await file('cut.geojson', text.slice(0, Math.floor(text.length * 0.9))))
      expect(report.rowsRead).toBeGreaterThan(3 * BATCH)
      expect(report.fileError?.message).toMatch(/cut\.geojson/)
    })
  })

  it('--skip-invalid loads the valid rows and lists the skipped ones', async () => {
    let text = await csvWith(SAMPLE, 20, 'slope_deg', 'steep')
    const lines = text.split('\n')
    const cells = (lines[LATE_ROW] as string).split(',')
    const header = (lines[0] as string).split(',')
    cells[header.indexOf('latitude')] = '45.5'
    cells[header.indexOf('longitude')] = '-125.2'
    lines[LATE_ROW] = cells.join(',')
    text = lines.join('\n')
    const report = await importSiteFile(seeded.sql, await file('some-bad.csv', text), {
      skipInvalid: true,
      batchRows: BATCH,
    })
    expect(report).toMatchObject({
      outcome: 'created',
      rowsRead: SAMPLE.length,
      rowsLoaded: SAMPLE.length - 2,
      rowsRefused: 2,
      skipInvalid: true,
      active: false,
      activated: false,
    })
    expect(brief(report)).toEqual([
      { row: 20, featureId: String(SAMPLE[19]?.id), field: 'slope_deg', rule: 'type' },
      {
        row: LATE_ROW,
        featureId: String(SAMPLE[LATE_ROW - 1]?.id),
        field: 'latitude,longitude',
        rule: 'outside_coverage',
      },
    ])
    const kept = (await listSiteVersions(seeded.sql)).find((v) => v.version === report.version)
    expect(kept).toMatchObject({ rowCount: SAMPLE.length - 2, source: 'some-bad.csv', active: false })
    const [{ ids } = { ids: [] }] = await seeded.sql<{ ids: number[] }[]>`
      SELECT array_agg(id ORDER BY id) AS ids FROM ${seeded.sql(report.version as string)}`
    expect(ids).toEqual(Array.from({ length: SAMPLE.length - 2 }, (_, i) => i + 1))
    expect((await activeSiteVersion(seeded.sql))?.version).toBe(synthetic)
  })

  it('fills the optional columns with their defaults and counts them; rounds whole-number columns', async () => {
    const lines = (await csvText(SAMPLE.slice(0, 50))).trimEnd().split('\n')
    const header = (lines[0] as string).split(',')
    const drop = ['heat_load_index', 'state', 'zone', 'region_id'].map((name) => header.indexOf(name))
    const elevation = header.indexOf('elevation_m')
    const text = lines
      .map((line, index) =>
        line
          .split(',')
          .map((cell, column) => (index > 0 && column === elevation && index <= 5 ? `${cell}.4` : cell))
          .filter((_, column) => !drop.includes(column))
          .join(','),
      )
      .join('\n')
    const report = await importSiteFile(seeded.sql, await file('bare.csv', text))
    expect(report.outcome).toBe('created')
    expect(Object.fromEntries(report.defaulted.map((d) => [d.column, d.rows]))).toEqual({
      heat_load_index: 50,
      region_id: 50,
      zone: 50,
      state: 50,
    })
    expect(report.defaulted.find((d) => d.column === 'heat_load_index')?.default).toMatch(
      /^computed from latitude/,
    )
    expect(report.rounded).toEqual([{ column: 'elevation_m', rows: 5 }])
    expect((await listSiteVersions(seeded.sql)).find((v) => v.version === report.version)?.defaults).toEqual({
      heat_load_index: 50,
      region_id: 50,
      zone: 50,
      state: 50,
    })
  })

  it('an interrupted import gives its staging table up', async () => {
    const path = join(dir, 'long.csv')
    await writeSiteFile(SYNTHETIC, path)
    const aborter = new AbortController()
    const seen: SiteImportProgress[] = []
    const report = await importSiteFile(seeded.sql, path, {
      batchRows: BATCH,
      signal: aborter.signal,
      onProgress: (progress) => {
        seen.push(progress)
        aborter.abort()
      },
    })
    expect(seen[0]).toMatchObject({ phase: 'loading', batches: 1, rowsLoaded: expect.any(Number) })
    expect(report).toMatchObject({ outcome: 'interrupted', version: null, rowsLoaded: 0 })
    expect(report.rowsRead).toBeLessThan(SYNTHETIC.length)
    await expectNothingKept(seeded.sql, synthetic)
  })

  it('exports a version that is not active, and refuses one that is not there', async () => {
    const report = await importSiteFile(seeded.sql, await file('few.csv', await csvText(SAMPLE.slice(0, 30))))
    const path = join(dir, 'few-again.ndjson')
    expect(await exportSiteVersion(seeded.sql, path, { version: report.version as string })).toMatchObject({
      rows: 30,
      format: 'ndjson',
    })
    expect((await importSiteFile(seeded.sql, path)).outcome).toBe('kept')
    await expect(
      exportSiteVersion(seeded.sql, join(dir, 'x.csv'), { version: 'sites_000000000000' }),
    ).rejects.toThrow(/no site data version sites_000000000000/)
    await expect(exportSiteVersion(seeded.sql, path)).rejects.toThrow(/exists already/)
  })
})

describe('site files into versions (embedded PGlite)', () => {
  let db: Database
  beforeAll(async () => {
    db = await openEmbeddedDatabase()
    await migrate(db.sql)
  }, 120_000)
  afterAll(() => db?.close())

  it('imports a file and activates it; the sites answer from it', async () => {
    const path = join(dir, 'embedded.csv')
    await writeSiteFile(SAMPLE, path)
    const revision = await siteRevision(db.sql)
    const report = await importSiteFile(db.sql, path, { activate: true, batchRows: BATCH })
    expect(report).toMatchObject({
      outcome: 'created',
      active: true,
      activated: true,
      rowsLoaded: SAMPLE.length,
    })
    expect(await siteRevision(db.sql)).not.toBe(revision)
    const probe = SAMPLE[7] as Site
    const { nearest } = await findNearestSites(db.sql, [probe], 10)
    expect(nearest[0]?.site).toEqual({ ...probe, id: 8 })
    const again = join(dir, 'embedded-again.gpkg')
    expect((await exportSiteVersion(db.sql, again)).rows).toBe(SAMPLE.length)
    expect((await importSiteFile(db.sql, again)).outcome).toBe('kept')
    expect(await db.sql`SELECT staging FROM site_data_imports`).toEqual([])
  })
})
