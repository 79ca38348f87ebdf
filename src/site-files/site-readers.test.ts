import { copyFile, mkdtemp, open, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import Database from 'better-sqlite3'
import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSites } from '../seed/generate-sites.ts'
import type { Site } from '../types.ts'
import { parseColumnMap } from './column-map.ts'
import { readCsvSites } from './csv-site-reader.ts'
import { SiteFileError } from './site-file-error.ts'
import type { OpenedSource } from './site-file-source.ts'
import { readSiteFile, type SiteReadOptions, type SiteRecord } from './site-readers.ts'
import { type SiteProblem, SiteValidator } from './site-validation.ts'
import { csvChunks, featureJson, writeSiteFile } from './site-writers.ts'

const SITES: Site[] = generateSites()
  .filter((_, index) => index % 50 === 0)
  .slice(0, 100)

let dir: string
let gpkg: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'site-readers-'))
  gpkg = join(dir, 'sites.gpkg')
  await writeSiteFile(SITES, gpkg)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function csvText(sites: readonly Site[]): Promise<string> {
  let text = ''
  for await (const chunk of csvChunks(sites)) text += chunk
  return text
}

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}

async function records(path: string, options: SiteReadOptions = {}): Promise<SiteRecord[]> {
  const out: SiteRecord[] = []
  for await (const record of readSiteFile(path, options)) out.push(record)
  return out
}

/** Every problem of a file's rows; a file refused as a whole throws. */
async function problems(path: string, options: SiteReadOptions = {}): Promise<SiteProblem[]> {
  const found: SiteProblem[] = []
  for await (const checked of new SiteValidator({ name: path }).validate(readSiteFile(path, options)))
    if (checked.problems) found.push(...checked.problems)
  return found
}

async function refusal(path: string, options: SiteReadOptions = {}): Promise<SiteFileError> {
  try {
    await problems(path, options)
  } catch (error) {
    expect(error).toBeInstanceOf(SiteFileError)
    return error as SiteFileError
  }
  throw new Error(`${path} was read`)
}

const brief = (found: SiteProblem[]) =>
  found.map(({ row, featureId, field, rule }) => ({ row, featureId, field, rule }))

describe('bad rows are refused with their row and field', () => {
  it('a wrong type and an out-of-range slope (CSV)', async () => {
    const lines = (await csvText(SITES.slice(0, 5))).split('\n')
    const header = (lines[0] as string).split(',')
    const cells = (line: number) => (lines[line] as string).split(',')
    const edit = (line: number, column: string, value: string) => {
      const row = cells(line)
      row[header.indexOf(column)] = value
      lines[line] = row.join(',')
    }
    edit(2, 'slope_deg', 'steep')
    edit(4, 'slope_deg', '95')
    const path = await file('bad-values.csv', lines.join('\n'))
    expect(brief(await problems(path))).toEqual([
      { row: 2, featureId: String(SITES[1]?.id), field: 'slope_deg', rule: 'type' },
      { row: 4, featureId: String(SITES[3]?.id), field: 'slope_deg', rule: 'range' },
    ])
    const [first, second] = await problems(path)
    expect(first).toMatchObject({ value: 'steep', message: 'slope_deg must be a number' })
    expect(second).toMatchObject({ value: '95', message: 'slope_deg must be 0–90 degrees' })
  })

  it('a point in the sea (GeoJSON)', async () => {
    const features = SITES.slice(0, 3).map((site) => featureJson(site))
    features[1] = featureJson({ ...(SITES[1] as Site), latitude: 45.5, longitude: -125.2 })
    const path = await file(
      'sea.geojson',
      `{"type":"FeatureCollection","features":[${features.join(',\n')}]}`,
    )
    expect(await problems(path)).toEqual([
      {
        row: 2,
        featureId: String(SITES[1]?.id),
        field: 'latitude,longitude',
        value: '45.5,-125.2',
        rule: 'outside_coverage',
        message:
          'the point lies outside the coverage region (Oregon and Washington land and their inland marine waters)',
      },
    ])
  })

  it('a missing column, on every row (CSV), and as the column list tells it', async () => {
    const lines = (await csvText(SITES.slice(0, 3))).trimEnd().split('\n')
    const at = (lines[0] as string).split(',').indexOf('soil_depth_cm')
    const path = await file(
      'no-soil.csv',
      lines.map((line) => line.split(',').toSpliced(at, 1).join(',')).join('\n'),
    )
    expect(brief(await problems(path))).toEqual(
      [1, 2, 3].map((row) => ({
        row,
        featureId: String(SITES[row - 1]?.id),
        field: 'soil_depth_cm',
        rule: 'required',
      })),
    )
    let columns: readonly (string | null)[] = []
    await records(path, { onColumns: (names) => (columns = names) })
    expect(columns).not.toContain('soil_depth_cm')
    expect(columns).toContain('slope_deg')
  })

  it('a duplicate point (NDJSON)', async () => {
    const lines = SITES.slice(0, 4).map((site) => featureJson(site))
    lines.push(
      featureJson({ ...(SITES[1] as Site), id: 'again', latitude: (SITES[1] as Site).latitude + 2e-6 }),
    )
    const path = await file('twice.ndjson', `${lines.join('\n')}\n`)
    expect(await problems(path)).toEqual([
      {
        row: 5,
        featureId: 'again',
        field: 'latitude,longitude',
        value: `${(SITES[1] as Site).latitude + 2e-6},${SITES[1]?.longitude}`,
        rule: 'duplicate',
        message: "the point is row 2's (the same to 5 decimals, about 1 m)",
      },
    ])
  })

  it('a value of the wrong type and a duplicate (GeoPackage)', async () => {
    const path = join(dir, 'edited.gpkg')
    await copyFile(gpkg, path)
    const db = new Database(path)
    db.prepare("UPDATE sites SET slope_deg = 'flat' WHERE fid = 3").run()
    db.prepare('UPDATE sites SET geom = (SELECT geom FROM sites WHERE fid = 1) WHERE fid = 5').run()
    db.prepare('UPDATE sites SET geom = NULL WHERE fid = 6').run()
    db.close()
    expect(brief(await problems(path))).toEqual([
      { row: 3, featureId: String(SITES[2]?.id), field: 'slope_deg', rule: 'type' },
      { row: 5, featureId: String(SITES[4]?.id), field: 'latitude,longitude', rule: 'duplicate' },
      { row: 6, featureId: String(SITES[5]?.id), field: 'geometry', rule: 'geometry' },
    ])
  })

  it('a feature that is not a point, and lines that are not features (GeoJSON, NDJSON)', async () => {
    const point = JSON.parse(featureJson(SITES[0] as Site))
    const lines = [
      JSON.stringify(point),
      JSON.stringify({ ...point, geometry: { type: 'Polygon', coordinates: [] } }),
      JSON.stringify({ ...point, geometry: null }),
      JSON.stringify({ ...point, geometry: { type: 'Point', coordinates: ['a', 1] } }),
      '{"type": "Feature", "geometry":',
      '',
      JSON.stringify({ type: 'FeatureCollection', features: [] }),
      JSON.stringify({ ...point, properties: { ...point.properties, Slope_Deg: 3 } }),
    ]
    const found = await problems(await file('mixed.ndjson', lines.join('\r\n')))
    expect(found.map(({ row, field, rule, message }) => ({ row, field, rule, message }))).toEqual([
      { row: 2, field: 'geometry', rule: 'geometry', message: 'is a Polygon: a site is a Point' },
      { row: 3, field: 'geometry', rule: 'geometry', message: 'has no geometry: a site is a Point' },
      {
        row: 4,
        field: 'geometry',
        rule: 'geometry',
        message: 'has coordinates that are not a position [longitude, latitude]',
      },
      { row: 5, field: 'line', rule: 'json', message: expect.stringMatching(/^line 5 is not JSON: /) },
      { row: 6, field: 'feature', rule: 'feature', message: 'is a FeatureCollection, not a Feature' },
      {
        row: 7,
        field: 'slope_deg',
        rule: 'columns',
        message: 'the properties "slope_deg" and "Slope_Deg" both give slope_deg',
      },
    ])
  })

  it('a CSV row with too few or too many cells', async () => {
    const lines = (await csvText(SITES.slice(0, 3))).trimEnd().split('\n')
    lines[2] = `${lines[2]},7`
    lines[3] = (lines[3] as string).split(',').slice(0, 5).join(',')
    const found = await problems(await file('cells.csv', `${lines.join('\n')},\n`))
    expect(found.map(({ row, field, rule, message }) => ({ row, field, rule, message }))).toEqual([
      { row: 2, field: 'cells', rule: 'cells', message: 'has 18 cells where the header has 17 columns' },
      { row: 3, field: 'cells', rule: 'cells', message: 'has 6 cells where the header has 17 columns' },
    ])
  })
})

describe('bad files are refused as a whole, saying why', () => {
  it('an empty file, a header alone, a collection without features, a layer without rows', async () => {
    expect((await refusal(await file('empty.csv', ''))).message).toMatch(/empty\.csv: is empty$/)
    expect((await refusal(await file('blank.geojson', '  \n'))).message).toMatch(/blank\.geojson: is empty$/)
    const header = (await csvText([])).trim()
    expect((await refusal(await file('header.csv', header))).message).toMatch(/header\.csv: holds no sites$/)
    expect(
      (await refusal(await file('none.geojson', '{"type":"FeatureCollection","features":[]}'))).message,
    ).toMatch(/holds no sites$/)
    const path = join(dir, 'no-rows.gpkg')
    await copyFile(gpkg, path)
    const db = new Database(path)
    db.exec('DELETE FROM sites')
    db.close()
    expect((await refusal(path)).message).toMatch(/no-rows\.gpkg: holds no sites$/)
  })

  it('a truncated or damaged GeoPackage', async () => {
    const { size } = await stat(gpkg)
    for (const length of [size - 4096, 8192, 4096 + 100, 50]) {
      const path = join(dir, `cut-${length}.gpkg`)
      await copyFile(gpkg, path)
      await truncate(path, length)
      expect((await refusal(path)).message).toMatch(/is cut short: \d+ bytes/)
    }
    const damaged = join(dir, 'damaged.gpkg')
    await copyFile(gpkg, damaged)
    const handle = await open(damaged, 'r+')
    for (let page = 2; page * 4096 < size; page++)
      await handle.write(Buffer.alloc(16, 0xff), 0, 16, page * 4096)
    await handle.close()
    expect((await refusal(damaged)).message).toMatch(
      /damaged\.gpkg.*: is damaged or cut short \(SQLITE_CORRUPT/,
    )
  })

  it('a file that is not what its extension says', async () => {
    const csv = await csvText(SITES.slice(0, 2))
    const geojson = `{"type":"FeatureCollection","features":[${featureJson(SITES[0] as Site)}]}`
    const cases: [string, string | Buffer, RegExp][] = [
      ['csv.gpkg', csv, /csv\.gpkg: is not a GeoPackage: it looks like text \(CSV\? name it \.csv\)$/],
      ['json.csv', geojson, /json\.csv: is not CSV: it looks like JSON/],
      ['csv.geojson', csv, /csv\.geojson: is not a GeoJSON FeatureCollection: it looks like text/],
      ['csv.ndjson', csv, /is not newline-delimited GeoJSON: it looks like text/],
      ['gzip.csv', Buffer.from([0x1f, 0x8b, 8, 0, 0, 0]), /is not CSV: it looks like gzip-compressed data/],
      ['zip.geojson', Buffer.from('PK\x03\x04rest', 'latin1'), /it looks like a ZIP archive/],
      ['binary.csv', Buffer.from([1, 2, 0, 4]), /is not CSV: it looks like binary data/],
      ['array.geojson', '[1, 2]', /array\.geojson: is a JSON array, not a GeoJSON FeatureCollection/],
      [
        'feature.geojson',
        featureJson(SITES[0] as Site),
        /is a GeoJSON Feature, not a GeoJSON FeatureCollection/,
      ],
      [
        'lines.geojson',
        `${featureJson(SITES[0] as Site)}\n${featureJson(SITES[1] as Site)}`,
        /is a GeoJSON Feature, not a GeoJSON FeatureCollection|is not valid JSON/,
      ],
      ['cut.geojson', geojson.slice(0, -10), /cut\.geojson: is not valid JSON/],
      [
        'features.geojson',
        '{"type":"FeatureCollection","features":{"a":{}}}',
        /has "features" that is not an array/,
      ],
      ['sites.shp', csv, /sites\.shp: has an extension of no site file format/],
    ]
    cases.push([
      'sqlite.csv',
      await readFile(gpkg),
      /sqlite\.csv: is not CSV: it looks like an SQLite database/,
    ])
    for (const [name, content, message] of cases)
      expect((await refusal(await file(name, content))).message, name).toMatch(message)
  })

  it('an SQLite database that is no GeoPackage, and GeoPackages with no point layer to read', async () => {
    const plain = join(dir, 'plain.gpkg')
    new Database(plain).exec('CREATE TABLE t (a)').close()
    expect((await refusal(plain)).message).toMatch(/is an SQLite database but not a GeoPackage/)

    const edited = async (name: string, sql: string) => {
      const path = join(dir, name)
      await copyFile(gpkg, path)
      new Database(path).exec(sql).close()
      return path
    }
    const polygons = await edited(
      'polygons.gpkg',
      "UPDATE gpkg_geometry_columns SET geometry_type_name = 'POLYGON'",
    )
    expect((await refusal(polygons)).message).toMatch(
      /has a layer "sites" of POLYGON geometries: sites are points$/,
    )
    const multi = await edited(
      'multi.gpkg',
      "UPDATE gpkg_geometry_columns SET geometry_type_name = 'MULTIPOINT'",
    )
    expect((await refusal(multi)).message).toMatch(/-explodecollections/)
    const mercator = await edited(
      'mercator.gpkg',
      `INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, 'PROJCS["WGS 84 / Pseudo-Mercator"]', NULL);
       UPDATE gpkg_geometry_columns SET srs_id = 3857; UPDATE gpkg_contents SET srs_id = 3857`,
    )
    const error = await refusal(mercator)
    expect(error.message).toMatch(
      /in EPSG:3857 \(WGS 84 \/ Pseudo-Mercator\): sites must be WGS84 longitude and latitude/,
    )
    expect(error.field).toBe('srs')
    const undefinedSrs = await edited('undefined.gpkg', 'UPDATE gpkg_geometry_columns SET srs_id = 0')
    expect((await refusal(undefinedSrs)).message).toMatch(/in no defined coordinate system/)
    const empty = await edited(
      'no-layer.gpkg',
      'DELETE FROM gpkg_geometry_columns; DELETE FROM gpkg_contents',
    )
    expect((await refusal(empty)).message).toMatch(/holds no feature layer/)
  })

  it('a GeoPackage with two layers unless one is named', async () => {
    const path = join(dir, 'two.gpkg')
    await copyFile(gpkg, path)
    const db = new Database(path)
    db.exec(`CREATE TABLE more AS SELECT * FROM sites WHERE fid <= 3;
      INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('more', 'features', 'more', 4326);
      INSERT INTO gpkg_geometry_columns VALUES ('more', 'geom', 'POINT', 4326, 0, 0)`)
    db.close()
    expect((await refusal(path)).message).toMatch(
      /has 2 feature layers \(more, sites\): name the one to read$/,
    )
    expect((await refusal(path, { layer: 'other' })).message).toMatch(
      /has no feature layer "other" \(its layers: more, sites\)/,
    )
    expect(await records(path, { layer: 'more' })).toHaveLength(3)
    expect(await problems(path, { layer: 'sites' })).toEqual([])
  })

  it('a GeoJSON collection in another coordinate system; CRS84 and EPSG:4326 are read', async () => {
    const collection = (crs: string) =>
      `{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"${crs}"}},"features":[${featureJson(SITES[0] as Site)}]}`
    const error = await refusal(await file('3857.geojson', collection('urn:ogc:def:crs:EPSG::3857')))
    expect(error.message).toMatch(
      /is in the coordinate system urn:ogc:def:crs:EPSG::3857: sites must be WGS84/,
    )
    for (const crs of ['urn:ogc:def:crs:OGC:1.3:CRS84', 'urn:ogc:def:crs:EPSG::4326', 'EPSG:4326'])
      expect(await problems(await file('wgs84.geojson', collection(crs)))).toEqual([])
  })

  it('a column map whose target meets a column of the file', async () => {
    const path = await file('mapped.csv', await csvText(SITES.slice(0, 2)))
    const onto = parseColumnMap({ rock_fraction_pct: 'vegetation_cover_pct' })
    expect((await refusal(path, { columnMap: onto })).message).toMatch(
      /has a header that cannot be read: the columns "rock_fraction_pct" and "vegetation_cover_pct" both give vegetation_cover_pct/,
    )
    const columnMap = parseColumnMap({
      vegetation_cover_pct: null,
      rock_fraction_pct: 'vegetation_cover_pct',
    })
    expect(brief(await problems(path, { columnMap }))).toEqual([
      { row: 1, featureId: String(SITES[0]?.id), field: 'rock_fraction_pct', rule: 'required' },
      { row: 2, featureId: String(SITES[1]?.id), field: 'rock_fraction_pct', rule: 'required' },
    ])
  })
})

describe('readers', () => {
  it('map a file’s own column names to the format’s, in every format', async () => {
    const columnMap = parseColumnMap({ ELEV: 'elevation_m', plot: 'site_id' })
    const rename = (text: string) => text.replaceAll('elevation_m', 'ELEV').replaceAll('site_id', 'plot')
    const csv = await file('theirs.csv', rename(await csvText(SITES.slice(0, 3))))
    const ndjson = await file(
      'theirs.ndjson',
      rename(
        SITES.slice(0, 3)
          .map((site) => featureJson(site))
          .join('\n'),
      ),
    )
    const geopackage = join(dir, 'theirs.gpkg')
    await copyFile(gpkg, geopackage)
    new Database(geopackage)
      .exec(
        'ALTER TABLE sites RENAME COLUMN elevation_m TO ELEV; ALTER TABLE sites RENAME COLUMN site_id TO plot',
      )
      .close()
    for (const path of [csv, ndjson, geopackage]) {
      const unmapped = await problems(path)
      expect(
        unmapped.filter((problem) => problem.row === 1).map(({ field, rule }) => `${field}:${rule}`),
      ).toEqual(['elevation_m:required'])
      const read = await records(path, { columnMap })
      expect(read[0]).toEqual({
        row: 1,
        featureId: String(SITES[0]?.id),
        fields: expect.objectContaining({ elevation_m: expect.anything(), site_id: expect.anything() }),
      })
      expect(await problems(path, { columnMap })).toEqual([])
    }
  })

  it('read CSV with semicolons or tabs, CRLF line ends, a byte order mark, quotes and blank lines', async () => {
    const text = await csvText(SITES.slice(0, 3))
    const variants = [
      text.replaceAll(',', ';'),
      text.replaceAll(',', '\t'),
      `\uFEFF${text.replaceAll('\n', '\r\n')}`,
      `\n\n${text.replace('\n', '\n\n')}\n\n`,
      text
        .split('\n')
        .map((line, index) =>
          index === 2
            ? line
                .split(',')
                .map((cell) => `"${cell}"`)
                .join(',')
            : line,
        )
        .join('\n'),
      text.replaceAll('\n', '\r'),
    ]
    for (const [index, variant] of variants.entries()) {
      const read = await records(await file(`variant-${index}.csv`, variant))
      expect(
        read.map((record) => record.row),
        `variant ${index}`,
      ).toEqual([1, 2, 3])
      expect(await problems(join(dir, `variant-${index}.csv`)), `variant ${index}`).toEqual([])
    }
  })

  it('read a stream of text chunks, its format told or taken from its name', async () => {
    const text = await csvText(SITES.slice(0, 4))
    const fromStream = async (options: SiteReadOptions) => {
      const out: SiteRecord[] = []
      for await (const record of readSiteFile(Readable.from(text.match(/[\s\S]{1,37}/g) ?? []), options))
        out.push(record)
      return out
    }
    expect(await fromStream({ name: 'upload.csv' })).toHaveLength(4)
    expect(await fromStream({ format: 'csv' })).toHaveLength(4)
    await expect(fromStream({})).rejects.toThrow('input: has an extension of no site file format')
    const missing = join(dir, 'missing.csv')
    await expect(records(missing)).rejects.toThrow(/missing\.csv: cannot be read: ENOENT/)
  })

  it('let a reader stop early, and close the file', async () => {
    const paths = [gpkg]
    for (const [name, content] of [
      ['early.csv', await csvText(SITES)],
      ['early.ndjson', SITES.map((site) => featureJson(site)).join('\n')],
      [
        'early.geojson',
        `{"type":"FeatureCollection","features":[${SITES.map((site) => featureJson(site)).join(',')}]}`,
      ],
    ] as const)
      paths.push(await file(name, content))
    for (const path of paths) {
      for (let round = 0; round < 3; round++) {
        let seen = 0
        for await (const _ of readSiteFile(path)) if (++seen === 2) break
        expect(seen).toBe(2)
      }
      expect(await records(path)).toHaveLength(SITES.length)
    }
  })

  it('split CSV as csv-parse does, quotes or not, however the chunks fall', async () => {
    // Mostly plain cells, so that many tables have no quote at all or only late ones.
    const cell = fc.oneof(
      { arbitrary: fc.stringMatching(/^[a-z0-9 .-]{0,6}$/), weight: 30 },
      {
        arbitrary: fc.stringMatching(/^[a-z",\n ]{0,6}$/).map((text) => `"${text.replaceAll('"', '""')}"`),
        weight: 1,
      },
    )
    const rowsOf = fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 })
    const names = ['a', 'b', 'c']
    await fc.assert(
      fc.asyncProperty(rowsOf, fc.integer({ min: 1, max: 40 }), fc.boolean(), async (rows, size, crlf) => {
        const text = ['a,b,c', ...rows.map((row) => row.join(','))].join(crlf ? '\r\n' : '\n')
        const expected = (
          parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][]
        ).slice(1)
        const bytes = Buffer.from(text)
        const chunks = [] as Buffer[]
        for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
        const source: OpenedSource = {
          name: 'table.csv',
          path: null,
          head: chunks[0] ?? Buffer.alloc(0),
          chunks: Readable.from(chunks),
          close: () => {},
        }
        const got: { cells: string[]; issue: boolean }[] = []
        for await (const record of readCsvSites(source))
          got.push({ cells: names.map((name) => String(record.fields[name] ?? '')), issue: !!record.issues })
        expect(got).toEqual(
          expected.map((cells) => ({
            cells: names.map((_, index) => (cells[index] ?? '').trim()),
            issue: cells.length < 3 || cells.slice(3).some((cell) => cell.trim() !== ''),
          })),
        )
      }),
      { numRuns: 500 },
    )
  })
})
