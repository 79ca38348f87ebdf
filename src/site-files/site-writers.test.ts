import { createReadStream } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSites } from '../seed/generate-sites.ts'
import type { Site } from '../types.ts'
import type { SiteFileSource } from './site-file-source.ts'
import { SITE_COLUMN_NAMES } from './site-format.ts'
import { readSiteFile, type SiteReadOptions } from './site-readers.ts'
import { type CheckedSite, SiteValidator } from './site-validation.ts'
import { csvChunks, featureJson, writeSiteFile, writeSitesText } from './site-writers.ts'

/** 2,000 synthetic sites from all over the coverage region (every 8th of them, south to north). */
const SITES: Site[] = generateSites()
  .filter((_, index) => index % 8 === 0)
  .slice(0, 2000)
const FORMATS = [
  ['csv', 'sites.csv'],
  ['geojson', 'sites.geojson'],
  ['ndjson', 'sites.ndjson'],
  ['gpkg', 'sites.gpkg'],
] as const

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'site-writers-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function checkedRows(source: SiteFileSource, options: SiteReadOptions = {}): Promise<CheckedSite[]> {
  const rows: CheckedSite[] = []
  for await (const row of new SiteValidator().validate(readSiteFile(source, options))) rows.push(row)
  return rows
}

function expectSameSites(rows: CheckedSite[], sites: readonly Site[]): void {
  expect(rows.filter((row) => row.problems !== null)).toEqual([])
  expect(rows).toHaveLength(sites.length)
  rows.forEach((row, index) => {
    const { id, ...site } = sites[index] as Site
    expect(row).toEqual({ row: index + 1, featureId: String(id), site, problems: null })
  })
}

describe('site files round trip: write, read, validate', () => {
  it('has 2,000 sites from both states and every zone', () => {
    expect(SITES).toHaveLength(2000)
    expect(new Set(SITES.map((site) => site.state))).toEqual(new Set(['OR', 'WA']))
    expect(new Set(SITES.map((site) => site.zone)).size).toBe(8)
  })

  for (const [format, name] of FORMATS) {
    it(`gives the same sites back from ${format}, exactly`, async () => {
      const path = join(dir, name)
      expect(await writeSiteFile(SITES, path)).toEqual({ path, format, rows: 2000 })
      expectSameSites(await checkedRows(path), SITES)
    })

    it(`reads ${format} from a stream as from a path`, async () => {
      const path = join(dir, `stream-${name}`)
      await writeSiteFile(SITES.slice(0, 50), path)
      expectSameSites(await checkedRows(createReadStream(path), { name }), SITES.slice(0, 50))
    })

    it(`writes ${format} from an async iterable, a site at a time`, async () => {
      const path = join(dir, `async-${name}`)
      async function* one() {
        for (const site of SITES.slice(0, 20)) {
          await new Promise((resolve) => setImmediate(resolve))
          yield site
        }
      }
      expect((await writeSiteFile(one(), path)).rows).toBe(20)
      expectSameSites(await checkedRows(path), SITES.slice(0, 20))
    })
  }

  it('keeps rows without an id, and ids that are text, as the file gives them', async () => {
    const sites = SITES.slice(0, 3).map(({ id: _id, ...site }, index) => ({
      ...site,
      id: [null, 'stand "7", north', undefined][index],
    }))
    for (const [, name] of FORMATS) {
      const path = join(dir, `ids-${name}`)
      await writeSiteFile(sites, path)
      const rows = await checkedRows(path)
      expect(rows.map((row) => row.featureId)).toEqual(
        name.endsWith('.gpkg') ? ['1', 'stand "7", north', '3'] : [null, 'stand "7", north', null],
      )
    }
  })

  it('refuses to replace a file unless told to, and leaves no half file when a write fails', async () => {
    const path = join(dir, 'kept.csv')
    await writeFile(path, 'keep me')
    await expect(writeSiteFile(SITES, path)).rejects.toThrow(/kept\.csv: exists already/)
    expect(await readFile(path, 'utf8')).toBe('keep me')
    async function* failing() {
      yield SITES[0] as Site
      throw new Error('the store went away')
    }
    for (const name of ['kept.csv', 'failed.gpkg']) {
      await expect(writeSiteFile(failing(), join(dir, name), { overwrite: true })).rejects.toThrow(
        'the store went away',
      )
    }
    expect(await readFile(path, 'utf8')).toBe('keep me')
    expect((await readdir(dir)).filter((file) => file.includes('partial') || file === 'failed.gpkg')).toEqual(
      [],
    )
    await writeSiteFile(SITES.slice(0, 2), path, { overwrite: true })
    expectSameSites(await checkedRows(path), SITES.slice(0, 2))
  })

  it('writes an empty set as a file with no rows, which reads back as refused', async () => {
    for (const [, name] of FORMATS) {
      const path = join(dir, `empty-${name}`)
      expect((await writeSiteFile([], path)).rows).toBe(0)
      // NDJSON without rows is no bytes at all.
      await expect(checkedRows(path)).rejects.toThrow(
        name.endsWith('.ndjson') ? /: is empty$/ : /: holds no sites$/,
      )
    }
  })
})

describe('the text formats', () => {
  it('write CSV with every column, a header line first, quoting text that needs it', async () => {
    let text = ''
    for await (const chunk of csvChunks([{ ...(SITES[0] as Site), id: 'a,"b"' }])) text += chunk
    const [header, row] = text.split('\n')
    expect(header).toBe(SITE_COLUMN_NAMES.join(','))
    expect(row?.startsWith('"a,""b""",')).toBe(true)
  })

  it('write a Point feature with the columns as properties, on one line', () => {
    const site = SITES[0] as Site
    const feature = JSON.parse(featureJson(site))
    expect(feature.geometry).toEqual({ type: 'Point', coordinates: [site.longitude, site.latitude] })
    expect(Object.keys(feature.properties)).toEqual(
      SITE_COLUMN_NAMES.filter((name) => name !== 'latitude' && name !== 'longitude'),
    )
    expect(feature.properties.site_id).toBe(site.id)
  })

  it('stream into a writable, waiting when it is full', async () => {
    const chunks: string[] = []
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk, _encoding, done) {
        chunks.push(String(chunk))
        setImmediate(done)
      },
    })
    expect(await writeSitesText(SITES, 'ndjson', slow)).toBe(2000)
    expect(chunks.length).toBeGreaterThan(5)
    expect(chunks.join('').split('\n')).toHaveLength(2001)
  })
})

describe('the GeoPackage', () => {
  it('has the tables and rows a GeoPackage 1.3 must have', async () => {
    const path = join(dir, 'schema.gpkg')
    await writeSiteFile(SITES, path)
    const db = new Database(path, { readonly: true })
    try {
      expect(db.pragma('application_id', { simple: true })).toBe(0x47504b47)
      expect(db.pragma('user_version', { simple: true })).toBe(10300)
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(
        db
          .prepare(
            'SELECT srs_id, organization, organization_coordsys_id FROM gpkg_spatial_ref_sys ORDER BY srs_id',
          )
          .all(),
      ).toEqual([
        { srs_id: -1, organization: 'NONE', organization_coordsys_id: -1 },
        { srs_id: 0, organization: 'NONE', organization_coordsys_id: 0 },
        { srs_id: 4326, organization: 'EPSG', organization_coordsys_id: 4326 },
      ])
      expect(
        db
          .prepare(
            'SELECT table_name, column_name, geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns',
          )
          .all(),
      ).toEqual([
        { table_name: 'sites', column_name: 'geom', geometry_type_name: 'POINT', srs_id: 4326, z: 0, m: 0 },
      ])
      const contents = db.prepare('SELECT * FROM gpkg_contents').get() as Record<string, unknown>
      const longitudes = SITES.map((site) => site.longitude)
      const latitudes = SITES.map((site) => site.latitude)
      expect(contents).toMatchObject({
        table_name: 'sites',
        data_type: 'features',
        identifier: 'sites',
        srs_id: 4326,
        min_x: Math.min(...longitudes),
        max_x: Math.max(...longitudes),
        min_y: Math.min(...latitudes),
        max_y: Math.max(...latitudes),
      })
      expect(contents.last_change).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(db.prepare('SELECT count(*) AS n FROM sites').get()).toEqual({ n: 2000 })
    } finally {
      db.close()
    }
  })
})
