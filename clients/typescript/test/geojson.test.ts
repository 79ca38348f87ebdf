import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FEATURE_RESULT_COLUMNS } from '../../../src/job-files/feature-output.ts'
import { GEOJSON_COLUMNS } from '../../../src/job-files/job-features.ts'
import { loadOpenApiDocument, OpenApiValidator } from '../../../test/openapi/openapi-validator.ts'
import { issueKey } from '../../../test/support/fixtures.ts'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { FOREST_POINTS, forestGrid, NO_DATA_POINTS } from '../../../test/support/sites.ts'
import {
  createSurvivalClient,
  type JobFeatureCollection,
  type JobResultFeature,
  SurvivalApiError,
  type SurvivalClient,
} from '../src/client.ts'
import { runScorer, startProxy, startScorer, until } from './support.ts'

type Position = [number, number]

/** A closed square ring around a point, `half` degrees each way. */
function square(point: { latitude: number; longitude: number }, half: number): Position[] {
  const { latitude: y, longitude: x } = point
  return [
    [x - half, y - half],
    [x + half, y - half],
    [x + half, y + half],
    [x - half, y + half],
    [x - half, y - half],
  ]
}

const at = (point: { latitude: number; longitude: number }): Position => [point.longitude, point.latitude]

/**
 * A planting programme as a GIS exports it: points to predict, a Polygon and a MultiPolygon to plan (one
 * taking the density from the defaults), and three features that fail: no data near, an unknown
 * species (both when scored), a LineString (at upload).
 */
const UNITS: JobFeatureCollection = {
  type: 'FeatureCollection',
  name: 'planting units 2027',
  features: [
    {
      type: 'Feature',
      id: 'plot-1',
      geometry: { type: 'Point', coordinates: at(FOREST_POINTS.coastRange) },
      properties: { species_code: 'PSME', horizons: [1, 5], name: 'plot 1' },
    },
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: at(FOREST_POINTS.westCascades) },
      properties: { id: 'plot-2', species_code: 'TSHE', planting_method: 'drone_seeded' },
    },
    {
      type: 'Feature',
      id: 'unit-7',
      geometry: { type: 'Polygon', coordinates: [square(FOREST_POINTS.coastRange, 0.02)] },
      properties: {
        name: 'unit 7',
        species_mix: [
          { species_code: 'PSME', share: 0.8 },
          { species_code: 'THPL', share: 0.2 },
        ],
        trees_per_acre: 300,
      },
    },
    {
      type: 'Feature',
      id: 'unit-8',
      geometry: { type: 'MultiPolygon', coordinates: [[square(FOREST_POINTS.eastCascades, 0.02)]] },
      properties: { species_code: 'PIPO', name: 'unit 8' },
    },
    {
      type: 'Feature',
      id: 'city',
      geometry: { type: 'Point', coordinates: at(NO_DATA_POINTS.downtownPortland) },
      properties: { species_code: 'PSME' },
    },
    {
      type: 'Feature',
      id: 'typo',
      geometry: { type: 'Point', coordinates: at(FOREST_POINTS.coastRange) },
      properties: { species_code: 'PSMA' },
    },
    {
      type: 'Feature',
      id: 'road',
      geometry: { type: 'LineString', coordinates: [at(FOREST_POINTS.coastRange), [-123.5, 44.7]] },
      properties: { species_code: 'PSME' },
    } as unknown as JobFeatureCollection['features'][number],
  ],
}
const DEFAULTS = ['--default', 'planting_method=manual', '--default', 'trees_per_acre=400']
const SUMMARY = '3 features failed: invalid_request 1, invalid_species 1, no_nearby_data 1'

/** `count` points on the forest grid, their ids g0…, half of them Douglas-fir, with a long name each. */
function gridCollection(count: number) {
  return {
    type: 'FeatureCollection',
    features: forestGrid(count).map((point, index) => ({
      type: 'Feature',
      id: `g${index}`,
      geometry: { type: 'Point', coordinates: at(point) },
      properties: { species_code: index % 2 ? 'TSHE' : 'PSME', note: `grid point ${index}` },
    })),
  }
}

async function text(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = []
  for await (const chunk of stream) parts.push(Buffer.from(chunk))
  return Buffer.concat(parts).toString('utf8')
}

const jobOf = (stderr: string) => /Job (job_\w+):/.exec(stderr)?.[1] as string

describe('GeoJSON jobs through the typed client and npm run score', () => {
  let running: SeededServer
  let dir: string
  let api: SurvivalClient
  let env: Record<string, string>
  let units: string
  beforeAll(async () => {
    running = await startSeededServer({}, 'mycel')
    api = createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })
    env = { SURVIVAL_API_KEY: running.key, SURVIVAL_API_URL: running.server.url }
    dir = mkdtempSync(join(tmpdir(), 'client-geojson-'))
    units = join(dir, 'units.geojson')
    writeFileSync(units, JSON.stringify(UNITS, null, 2))
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    await stopSeededServer(running)
  })

  it('uploadGeoJsonJob (a file, defaults as query parameters) → geoJsonResults: features typed, in order', async () => {
    const created = await api.uploadGeoJsonJob(units, {
      defaults: { planting_method: 'manual', trees_per_acre: 400 },
    })
    expect(created.rows).toBe(7)
    const job = await api.waitForJob(created.id, { pollMs: 50 })
    expect(job).toMatchObject({
      status: 'succeeded',
      format: 'geojson',
      rows_total: 7,
      rows_failed: 3,
      errors_by_code: { no_nearby_data: 1, invalid_species: 1, invalid_request: 1 },
    })

    const results = await api.geoJsonResults(created.id)
    expect(results.type).toBe('FeatureCollection')
    const byId = (id: string) => results.features.find((feature) => feature.id === id) as JobResultFeature
    expect(results.features.map((feature) => [feature.id, feature.properties.feature_index])).toEqual([
      ['plot-1', 0],
      ['plot-2', 1],
      ['unit-7', 2],
      ['unit-8', 3],
      ['city', 4],
      ['typo', 5],
      ['road', 6],
    ])
    // A point: its geometry and own properties back, survival at the horizons it asked for.
    const plot = byId('plot-1')
    expect(plot.geometry).toEqual(UNITS.features[0]?.geometry)
    expect(plot.properties).toMatchObject({ name: 'plot 1', species_code: 'PSME', horizons: [1, 5] })
    const direct = await api.predict({
      ...FOREST_POINTS.coastRange,
      species_code: 'PSME',
      planting_method: 'manual',
      horizons: [1, 5],
    })
    expect(plot.properties.survival_1y).toBe(direct.predictions[0]?.survival_probability)
    expect(plot.properties.survival_5y).toBe(direct.predictions[1]?.survival_probability)
    expect(plot.properties.top_factor_1y).toBe(direct.predictions[0]?.risk_factors[0]?.factor)
    // Every result property on every feature, null where it does not apply.
    expect(plot.properties).toMatchObject({ survival_3y: null, rule_set: null, error_code: null })
    // Its own planting method wins over the default.
    expect(typeof byId('plot-2').properties.survival_3y).toBe('number')
    // Stands: their plans, the second at the default density.
    const unit7 = byId('unit-7').properties
    expect(unit7).toMatchObject({ name: 'unit 7', rule_set: 'or_fpa', planted_trees_per_acre: 300 })
    expect(unit7.meets_probability).toBeGreaterThan(0)
    expect(unit7.lower_trees_per_acre).toBeLessThanOrEqual(unit7.expected_trees_per_acre as number)
    expect(byId('unit-8').properties).toMatchObject({ planted_trees_per_acre: 400, rule_horizon_years: 5 })
    expect(byId('unit-8').geometry?.type).toBe('MultiPolygon')
    // Failures: by the endpoints' codes when scored; at upload, naming the feature (no geometry back).
    expect(byId('city').properties.error_code).toBe('no_nearby_data')
    expect(byId('typo').properties.error_code).toBe('invalid_species')
    expect(byId('road').properties).toMatchObject({
      error_code: 'invalid_request',
      error_message: expect.stringMatching(/^feature 6: geometry.type "LineString"/),
    })
    expect(byId('road').geometry).toBeNull()
  })

  it('uploads a FeatureCollection object or a stream; CSV and NDJSON results by the centres; not GeoJSON for a CSV job', async () => {
    const small: JobFeatureCollection = { type: 'FeatureCollection', features: UNITS.features.slice(0, 3) }
    const fromObject = await api.uploadGeoJsonJob(small, { defaults: { planting_method: 'manual' } })
    const fromStream = await api.uploadGeoJsonJob(Readable.from([JSON.stringify(small)]), {
      defaults: { planting_method: 'manual' },
    })
    for (const { id } of [fromObject, fromStream])
      expect(await api.waitForJob(id, { pollMs: 50 })).toMatchObject({ status: 'succeeded', rows_failed: 0 })
    const [a, b] = await Promise.all([api.geoJsonResults(fromObject.id), api.geoJsonResults(fromStream.id)])
    expect(a).toEqual(b)

    const csv = await text(await api.streamResults(fromObject.id, { format: 'csv' }))
    expect(csv.split('\r\n')[0]).toBe([...GEOJSON_COLUMNS, ...FEATURE_RESULT_COLUMNS].join(','))
    const rows = parse(csv, { columns: true }) as Record<string, string>[]
    expect(rows.map((row) => [row.id, row.geometry_type, row.species, row.planting_method])).toEqual([
      ['plot-1', 'Point', 'PSME', 'manual'],
      ['plot-2', 'Point', 'TSHE', 'drone_seeded'],
      ['unit-7', 'Polygon', 'PSME:0.8|THPL:0.2', 'manual'],
    ])
    expect(Number(rows[2]?.latitude)).toBeCloseTo(FOREST_POINTS.coastRange.latitude, 4)
    expect(rows[0]?.survival_5y).toBe(String(a.features[0]?.properties.survival_5y))
    const ndjson = await api.streamResults(fromObject.id, { format: 'ndjson' })
    expect(ndjson.contentType).toBe('application/x-ndjson')
    const lines = (await text(ndjson))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[2]).toMatchObject({ row: 3, feature_index: 2, rule_set: 'or_fpa', survival_1y: null })

    // A CSV job has no GeoJSON results: it answers in its own format, which geoJsonResults refuses.
    const sites = join(dir, 'sites.csv')
    const { coastRange } = FOREST_POINTS
    writeFileSync(
      sites,
      `latitude,longitude,species_code,planting_method\n${coastRange.latitude},${coastRange.longitude},PSME,manual\n`,
    )
    const csvJob = await api.uploadJob(sites, { format: 'csv' })
    await api.waitForJob(csvJob.id, { pollMs: 50 })
    expect((await api.streamResults(csvJob.id, { format: 'geojson' })).contentType).toBe('text/csv')
    await expect(api.geoJsonResults(csvJob.id)).rejects.toThrow(/is not a GeoJSON job/)
  })

  it('GeoJSON results conform to schema/openapi.yaml (JobResultsCollection), odd features included', async () => {
    const ring = square(FOREST_POINTS.coastRange, 0.01)
    const odd = [
      // Altitude, foreign members, no properties at all.
      {
        type: 'Feature',
        bbox: [0, 0, 1, 1],
        geometry: { type: 'Point', coordinates: [...at(FOREST_POINTS.westCascades), 120], crs: 'x' },
      },
      // Properties null: the defaults give everything.
      {
        type: 'Feature',
        id: 3,
        geometry: { type: 'Point', coordinates: at(FOREST_POINTS.coastRange) },
        properties: null,
      },
      // Rings the plan refuses (not closed; too short): echoed as sent, failed when scored.
      { type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring.slice(0, 4)] }, properties: {} },
      {
        type: 'Feature',
        geometry: { type: 'MultiPolygon', coordinates: [[ring.slice(0, 3)]] },
        properties: {},
      },
      // No geometry; a position out of range: no geometry back.
      { type: 'Feature', geometry: null, properties: {} },
      { type: 'Feature', geometry: { type: 'Point', coordinates: [200, 44] }, properties: {} },
    ]
    const created = await api.uploadGeoJsonJob(
      { type: 'FeatureCollection', features: [...UNITS.features, ...odd] } as JobFeatureCollection,
      { defaults: { species_code: 'PSME', planting_method: 'manual', trees_per_acre: 300 } },
    )
    await api.waitForJob(created.id, { pollMs: 50 })
    const validator = new OpenApiValidator(loadOpenApiDocument())
    const path = `/v1/jobs/${created.id}/results`
    const get = (headers: Record<string, string>) =>
      fetch(`${running.server.url}${path}`, { headers: { 'x-api-key': running.key, ...headers } })
    const whole = await get({ accept: 'application/geo+json' })
    const body = await whole.json()
    expect(validator.checkExchange('GET', path, { status: 200, headers: whole.headers, body })).toEqual([])
    const features = (body as { features: JobResultFeature[] }).features.slice(UNITS.features.length)
    expect(
      features.map((feature) => [feature.geometry?.type ?? null, feature.properties.error_code ?? null]),
    ).toEqual([
      ['Point', null],
      ['Point', null],
      ['Polygon', 'invalid_request'],
      ['MultiPolygon', 'invalid_request'],
      [null, 'invalid_request'],
      [null, 'invalid_request'],
    ])
    const part = await get({ accept: 'application/geo+json', range: 'bytes=100-' })
    const text = await part.text()
    expect(part.status).toBe(206)
    expect(
      validator.checkExchange('GET', path, { status: 206, headers: part.headers, body: undefined }),
    ).toEqual([])
    expect(text.length).toBeGreaterThan(0)
  })

  it('refuses a body that is not a FeatureCollection and a default the job does not take (400)', async () => {
    const notCollection = await api
      .uploadGeoJsonJob({ type: 'Feature' } as unknown as JobFeatureCollection)
      .catch((error: unknown) => error)
    expect(notCollection).toMatchObject({ status: 400, code: 'invalid_request', details: { field: 'body' } })
    const unknown = await api
      .uploadGeoJsonJob(UNITS, { defaults: { spacing: 3 } as never })
      .catch((error: unknown) => error)
    expect(unknown).toBeInstanceOf(SurvivalApiError)
    expect(unknown).toMatchObject({ status: 400, details: { field: 'query.spacing' } })
  })

  it('npm run score: a .geojson scored to .geojson, .csv and .ndjson, each the job results as served', async () => {
    const written: Record<string, string> = {}
    for (const extension of ['geojson', 'csv', 'ndjson']) {
      const out = join(dir, `planned.${extension}`)
      const { code, stderr } = await runScorer([units, '--out', out, '--poll', '0.1', ...DEFAULTS], env)
      expect(stderr).toContain(
        'Defaults for the features that lack them: planting_method=manual, trees_per_acre=400',
      )
      expect(stderr).toMatch(/Job job_\w+: 7 features queued/)
      expect(stderr).toContain(SUMMARY)
      expect(stderr).toContain(`Wrote 7 features → ${out} (failed features have error_code set)`)
      expect(code).toBe(1)
      expect(existsSync(`${out}.score-state.json`)).toBe(false)
      written[extension] = readFileSync(out, 'utf8')
      const format = extension as 'geojson' | 'csv' | 'ndjson'
      expect(written[extension]).toBe(await text(await api.streamResults(jobOf(stderr), { format })))
    }
    const collection = JSON.parse(written.geojson as string) as { features: JobResultFeature[] }
    expect(collection.features.map((feature) => feature.properties.error_code ?? null)).toEqual([
      null,
      null,
      null,
      null,
      'no_nearby_data',
      'invalid_species',
      'invalid_request',
    ])
    expect(collection.features[3]?.properties.planted_trees_per_acre).toBe(400)
    // The same results in every format: CSV cells and NDJSON fields as the GeoJSON properties.
    const csv = parse(written.csv as string, { columns: true }) as Record<string, string>[]
    const ndjson = (written.ndjson as string)
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    collection.features.forEach((feature, index) => {
      for (const name of ['survival_1y', 'survival_5y', 'meets_probability', 'error_code'] as const) {
        const value = feature.properties[name] ?? null
        expect(ndjson[index]?.[name], `${index} ${name}`).toBe(value)
        expect(csv[index]?.[name], `${index} ${name}`).toBe(value === null ? '' : String(value))
      }
    })
  })

  it('npm run score: --period/--scenario are defaults of a GeoJSON input; a feature’s own climate wins', async () => {
    const input = join(dir, 'climate.geojson')
    const point = (id: string, properties: Record<string, unknown>) => ({
      type: 'Feature',
      id,
      geometry: { type: 'Point', coordinates: at(FOREST_POINTS.westCascades) },
      properties: { species_code: 'TSHE', ...properties },
    })
    writeFileSync(
      input,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          point('flags', {}),
          point('own', { climate: { period: '2041-2070', scenario: 'ssp245' } }),
          point('flat', { period: '2011-2040', scenario: 'ssp370' }),
        ],
      }),
    )
    const out = join(dir, 'climate.csv')
    const flags = ['--period', '2071-2100', '--scenario', 'ssp585', '--default', 'planting_method=manual']
    const { code, stderr } = await runScorer([input, '--out', out, '--poll', '0.1', ...flags], env)
    expect(stderr).toContain('planting_method=manual, period=2071-2100, scenario=ssp585')
    expect(code).toBe(0)
    expect(stderr).toContain(`Scored 3 features → ${out}`)
    const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[]
    expect(rows.map((row) => [row.id, row.period, row.scenario])).toEqual([
      ['flags', '2071-2100', 'ssp585'],
      ['own', '2041-2070', 'ssp245'],
      ['flat', '2011-2040', 'ssp370'],
    ])
    const future = await api.predict({
      ...FOREST_POINTS.westCascades,
      species_code: 'TSHE',
      planting_method: 'manual',
      climate: { period: '2071-2100', scenario: 'ssp585' },
    })
    expect(rows[0]?.survival_5y).toBe(String(future.predictions[2]?.survival_probability))
    expect(rows[1]?.survival_5y).not.toBe(rows[0]?.survival_5y)
  })

  it('npm run score: GeoJSON usage errors exit 2', async () => {
    const sites = join(dir, 'usage.csv')
    writeFileSync(sites, 'latitude,longitude,species_code,planting_method\n44.6,-123.6,PSME,manual\n')
    const cases: [string[], string][] = [
      [[sites, '--out', join(dir, 'x.geojson')], "GeoJSON results are a GeoJSON input's"],
      [[units, '--out', join(dir, 'x.csv'), '--via', 'batch'], 'GeoJSON input goes through a job'],
      [
        [sites, '--out', join(dir, 'x.csv'), '--default', 'planting_method=manual'],
        'not a default CSV and NDJSON rows take',
      ],
      [[units, '--out', join(dir, 'x.csv'), '--default', 'spacing=3'], 'not a default a GeoJSON job takes'],
      [[units, '--out', join(dir, 'x.csv'), '--default', 'planting_method'], 'give it as name=value'],
      [[units, '--out', join(dir, 'x.csv'), '--default', 'trees_per_acre=many'], 'must be a number'],
      [
        [units, '--out', join(dir, 'x.csv'), '--period', '2041-2070', '--default', 'period=2071-2100'],
        'period is given twice',
      ],
    ]
    for (const [args, message] of cases) {
      const { code, stderr } = await runScorer(args, env)
      expect([code, stderr], args.join(' ')).toEqual([2, expect.stringContaining(message)])
    }
    const notGeoJson = join(dir, 'sites.geojson')
    writeFileSync(notGeoJson, 'latitude,longitude\n44.6,-123.6\n')
    const refused = await runScorer([notGeoJson, '--out', join(dir, 'x.geojson')], env)
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('is not GeoJSON')])
  })

  it('npm run score: a spore key (no jobs) cannot score GeoJSON, and says so', async () => {
    const spore = (await issueKey(running.db, 'spore')).key
    const { code, stderr } = await runScorer([units, '--out', join(dir, 'spore.geojson')], {
      ...env,
      SURVIVAL_API_KEY: spore,
    })
    expect(code).toBe(3)
    expect(stderr).toContain('jobs_not_in_tier')
    expect(stderr).toContain('GeoJSON input is scored through a job only')
  })

  it('npm run score: Ctrl-C mid-download, then the rerun resumes with Range; progress in features and bytes', async () => {
    const input = join(dir, 'grid.geojson')
    writeFileSync(input, JSON.stringify(gridCollection(1500)))
    const args = (out: string) => [
      input,
      '--out',
      out,
      '--poll',
      '0.1',
      '--default',
      'planting_method=manual',
    ]
    const whole = join(dir, 'grid-whole.geojson')
    const reference = await runScorer(args(whole), env)
    expect(reference.stderr).toMatch(/^uploading: .*KiB\/.*KiB \(100%\)/m)
    expect(reference.stderr).toMatch(/^scoring: [\d,]+\/1,500 features \(\d+%\)/m)
    expect(reference.stderr).toMatch(/^downloading: .*(KiB|MiB)/m)
    const total = readFileSync(whole).length
    expect(total).toBeGreaterThan(200_000)

    const proxy = await startProxy(running.server.url, {
      stallAfterBytes: (req, seen) => (req.url?.endsWith('/results') && seen === 1 ? 100_000 : null),
    })
    try {
      const out = join(dir, 'grid-resumed.geojson')
      const state = `${out}.score-state.json`
      const slow = { ...env, SURVIVAL_API_URL: proxy.url }
      const downloading = startScorer(args(out), slow)
      await until(
        'the first 100,000 bytes of the results on disk',
        () => existsSync(out) && readFileSync(out).length === 100_000,
      )
      downloading.child.kill('SIGINT')
      const first = await downloading.done
      expect(first.code).toBe(130)
      expect(first.stderr).toContain('Rerun the same command to resume')
      const saved = JSON.parse(readFileSync(state, 'utf8'))
      expect(saved).toMatchObject({
        via: 'job',
        out_format: 'geojson',
        defaults: { planting_method: 'manual' },
        etag: expect.stringMatching(/^"/),
      })

      proxy.release()
      const rerun = await runScorer(args(out), slow)
      expect(rerun.stderr).toContain(`Re-attaching to job ${saved.job_id}`)
      expect(rerun.stderr).toContain('Resuming the download at byte 100,000')
      expect(rerun.code).toBe(reference.code)
      expect(proxy.requests.filter((line) => line.startsWith('POST /v1/jobs?'))).toHaveLength(1)
      expect(proxy.requests.filter((line) => line.endsWith('/results'))).toHaveLength(2)
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(whole, 'utf8'))
      expect(existsSync(state)).toBe(false)
    } finally {
      await proxy.close()
    }
  })
})
