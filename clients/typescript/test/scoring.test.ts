import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, describe, expect, it } from 'vitest'
import { TREATMENT_VALUES as SERVER_TREATMENT_VALUES } from '../../../src/domain/treatment-values.ts'
import { csvLayout, csvRow, ndjsonRow } from '../../../src/job-files/job-rows.ts'
import { outputFormatOf, outputHeader, outputLine, resultsAt } from '../src/scoring/output.ts'
import { duration, progressLine } from '../src/scoring/progress.ts'
import {
  type ClimateDefaults,
  checkGeoJson,
  countRows,
  InputError,
  type InputRow,
  inputFormatOf,
  NDJSON_COLUMNS,
  readColumns,
  readRows,
  TREATMENT_VALUES,
  uploadText,
} from '../src/scoring/rows.ts'
import { inputIdentity, loadState, type ScoreState, saveState } from '../src/scoring/state.ts'

const dir = mkdtempSync(join(tmpdir(), 'scoring-rows-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function rowsOf(name: string, text: string, format: 'csv' | 'ndjson', climate?: ClimateDefaults) {
  const file = join(dir, name)
  writeFileSync(file, text)
  const rows: InputRow[] = []
  for await (const row of readRows(file, format, { climate })) rows.push(row)
  return { file, rows, count: await countRows(file, format) }
}

/** The server's request names its treatments in the domain's names; the API's, as the client sends them. */
const API_TREATMENT_NAMES: Record<string, string> = {
  vegetationControl: 'vegetation_control',
  animalProtection: 'animal_protection',
  stockType: 'stock_type',
  shade: 'shade',
}

/**
 * The one message the scorer words otherwise: the server's id rule is a union, and a value neither
 * side takes gets zod's own "Invalid input" there.
 */
const REWORDED: Record<string, string> = { 'id Invalid input': 'id must be a whole number or a string' }

/** What the server's upload check makes of a row: failed with a code and message, or to be scored with this body. */
const serverView = (row: {
  c: unknown[]
  q?: { climate?: unknown; treatments?: object | null }
  e?: { code: string; message: string }
}) => ({
  cells: row.c,
  error: row.e?.code ?? null,
  message: row.e ? (REWORDED[row.e.message] ?? row.e.message) : null,
  scored: Boolean(row.q),
  climate: row.q?.climate ?? null,
  treatments: row.q?.treatments
    ? Object.fromEntries(
        Object.entries(row.q.treatments).map(([name, value]) => [API_TREATMENT_NAMES[name] ?? name, value]),
      )
    : null,
})
const clientView = (row: InputRow) => ({
  cells: row.cells,
  error: row.error?.code ?? null,
  message: row.error?.message ?? null,
  scored: Boolean(row.request),
  climate: row.request?.climate ?? null,
  treatments: row.request?.treatments ?? null,
})

/** The server's reading of a CSV text, row by row. */
function serverCsv(text: string) {
  const records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][]
  const layout = csvLayout(records[0] as string[])
  return records.slice(1).map((cells, index) => serverView(csvRow(layout, index + 1, cells)))
}

/** The server's reading of an NDJSON text, row by row (blank lines skipped). */
function serverNdjson(text: string) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => serverView(ndjsonRow(index + 1, line)))
}

async function uploaded(file: string, format: 'csv' | 'ndjson', climate: ClimateDefaults): Promise<string> {
  let text = ''
  for await (const part of uploadText(file, format, { climate })) text += part
  return text
}

describe("the scorer's row checks are the jobs API's", () => {
  it('CSV rows', async () => {
    const text = [
      'Latitude, longitude ,species_code,PLANTING_METHOD,horizons,id,extra',
      '44.6,-123.6,PSME,manual,1|3|5,a,x',
      ' 44.6 ,-123.6, PSME ,manual,5;1,b,',
      '44.6,-123.6,PSME,manual,,,',
      'north,-123.6,PSME,manual,,c,',
      '95,-123.6,PSME,manual,,d,',
      '44.6,-190,PSME,manual,,e,',
      '44.6,-123.6,,manual,,f,',
      '44.6,-123.6,PSME,,,g,',
      '44.6,-123.6,PSME,manual,2,h,',
      '44.6,-123.6,PSME,manual,1.5,i,',
      '44.6,-123.6,PSME,manual,one,j,',
      '44.6,-123.6,PSME,manual,1|1|1|1|1|1|1|1|1|1|1,k,',
      `44.6,-123.6,PSME,manual,,${'z'.repeat(201)},`,
      `44.6,-123.6,${'P'.repeat(101)},manual,,l,`,
      '44.6,-123.6,PSME,manual,,m',
      '44.6,-123.6,PSME,manual,,n,x,y',
      '1e1,-1.2e2,PSME,manual,,o,',
      '0x10,-123.6,PSME,manual,,p,',
      '.5,-123.,PSME,manual,,q,"quoted, cell"',
      '',
      '44.6,-123.6,NOPE,sideways,,r,',
    ].join('\r\n')
    const { rows, count } = await rowsOf('rows.csv', text, 'csv')
    const server = serverCsv(text)
    expect(rows.map(clientView)).toEqual(server)
    expect(rows.map((row) => row.row)).toEqual(server.map((_, index) => index + 1))
    expect(count).toBe(server.length)
    expect(server.filter((row) => row.scored)).toHaveLength(6)
  })

  it('NDJSON lines', async () => {
    const lines = [
      { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' },
      {
        id: 3,
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        horizons: [5],
      },
      { id: 3.5, latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' },
      { id: true, latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' },
      { latitude: '44.6', longitude: -123.6, species_code: 'PSME', planting_method: 'manual' },
      { latitude: 44.6, longitude: -123.6, species_code: 7, planting_method: 'manual' },
      { latitude: 44.6, species_code: 'PSME', planting_method: 'manual' },
      { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual', horizons: [] },
      { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual', horizons: '1|5' },
      { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual', colour: 'red' },
      { latitude: 44.6, longitude: -123.6, species_code: '', planting_method: 'manual' },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        period: '2041-2070',
        scenario: 'ssp245',
      },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        period: '1991_2020',
        scenario: null,
      },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        climate: { period: '2071-2100', scenario: 'ssp585' },
      },
      { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual', climate: null },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        scenario: 'rcp85',
      },
      { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual', period: 2041 },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        period: 'x'.repeat(41),
      },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        climate: '2041-2070',
      },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        climate: { period: '2041-2070', rcp: 8.5 },
      },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        climate: { period: 7 },
      },
      {
        latitude: 44.6,
        longitude: -123.6,
        species_code: 'PSME',
        planting_method: 'manual',
        period: '2041-2070',
        climate: { scenario: 'ssp245' },
      },
      { latitude: 44.6, species_code: 'PSME', planting_method: 'manual', period: { deep: true } },
    ]
      .map((line) => JSON.stringify(line))
      .concat(['{"latitude": 44.6,', '[1, 2]', '"text"', '   ', 'null'])
    const { rows, count } = await rowsOf('rows.ndjson', `${lines.join('\n')}\r\n`, 'ndjson')
    const server = lines
      .filter((line) => line.trim() !== '')
      .map((line, index) => serverView(ndjsonRow(index + 1, line)))
    expect(rows.map(clientView)).toEqual(server)
    expect(count).toBe(server.length)
    expect(server.filter((row) => row.scored)).toHaveLength(7)
    expect(server.filter((row) => row.climate !== null)).toHaveLength(4)
  })

  it('CSV climate columns, as the server reads them', async () => {
    const text = [
      'id,latitude,longitude,species_code,planting_method,Period,SCENARIO,note',
      'a,44.6,-123.6,PSME,manual,,,',
      'b,44.6,-123.6,PSME,manual,1991_2020,,',
      'c,44.6,-123.6,PSME,manual, 2041-2070 ,ssp245,',
      'd,44.6,-123.6,PSME,manual,,ssp585,',
      `e,44.6,-123.6,PSME,manual,${'x'.repeat(41)},ssp585,`,
      'f,44.6,-123.6,PSME,manual,2050s',
    ].join('\n')
    const { rows } = await rowsOf('climate.csv', text, 'csv')
    const server = serverCsv(text)
    expect(rows.map(clientView)).toEqual(server)
    expect(server.map((row) => row.climate)).toEqual([
      null,
      { period: '1991_2020', scenario: null },
      { period: '2041-2070', scenario: 'ssp245' },
      { period: null, scenario: 'ssp585' },
      null,
      null,
    ])
    expect(server.map((row) => row.error)).toEqual([
      null,
      null,
      null,
      null,
      'invalid_request',
      'invalid_request',
    ])
  })
})

describe('treatments: read, checked and sent as the jobs API does', () => {
  it('the scorer’s lists of values are the server’s', () => {
    expect(TREATMENT_VALUES).toEqual(SERVER_TREATMENT_VALUES)
  })

  it('CSV treatment columns: trimmed, an empty cell names none, a bad value fails the row; every column echoed', async () => {
    const text = [
      'id,latitude,longitude,species_code,planting_method,Vegetation_Control,animal_protection,STOCK_TYPE,shade,note',
      'all,44.6,-123.6,PSME,manual,site_prep_release_2yr,mesh_tubes,container,shade_cards,x',
      'veg,44.6,-123.6,PSME,manual, release_1yr ,,,,',
      'tubes,44.6,-123.6,PSME,manual,,mesh_tubes,,,',
      'stock,44.6,-123.6,PSME,manual,,,bareroot,,',
      'shade,44.6,-123.6,PSME,manual,,,,shade_cards,',
      'none,44.6,-123.6,PSME,manual,none,none,bareroot,none,',
      'empty,44.6,-123.6,PSME,manual,,,,,',
      'blank,44.6,-123.6,PSME,manual,"  ",, , ,',
      'drone,44.6,-123.6,PSME,drone_seeded,site_prep,mesh_tubes,,,',
      'bad-veg,44.6,-123.6,PSME,manual,herbicide,,,,',
      'bad-tubes,44.6,-123.6,PSME,manual,,fence,,,',
      'bad-stock,44.6,-123.6,PSME,manual,,,plug,,',
      'bad-shade,44.6,-123.6,PSME,manual,,,,Shade_Cards,',
      'two-bad,44.6,-123.6,PSME,manual,,fence,plug,,',
      'bad-latitude,north,-123.6,PSME,manual,nope,,,,',
      'short,44.6,-123.6,PSME,manual,site_prep',
    ].join('\r\n')
    const { rows } = await rowsOf('treatments.csv', text, 'csv')
    const server = serverCsv(text)
    expect(rows.map(clientView)).toEqual(server)
    expect(rows.map((row) => row.cells)).toEqual(
      parse(text, { relax_column_count: true }).slice(1) as string[][],
    )
    expect(server.map((row) => row.treatments ?? row.message)).toEqual([
      {
        vegetation_control: 'site_prep_release_2yr',
        animal_protection: 'mesh_tubes',
        stock_type: 'container',
        shade: 'shade_cards',
      },
      { vegetation_control: 'release_1yr' },
      { animal_protection: 'mesh_tubes' },
      { stock_type: 'bareroot' },
      { shade: 'shade_cards' },
      { vegetation_control: 'none', animal_protection: 'none', stock_type: 'bareroot', shade: 'none' },
      null,
      null,
      // Whether a treatment applies to drone seeding is the server's question, when the row is scored.
      { vegetation_control: 'site_prep', animal_protection: 'mesh_tubes' },
      'vegetation_control must be one of none, site_prep, release_1yr, release_2yr, site_prep_release_1yr, site_prep_release_2yr',
      'animal_protection must be one of none, mesh_tubes',
      'stock_type must be one of bareroot, container',
      'shade must be one of none, shade_cards',
      'animal_protection must be one of none, mesh_tubes',
      'latitude must be a number',
      'the row has 6 cells; the header has 10',
    ])
    // A row naming none sends the body it sent before treatments: no `treatments` key at all.
    expect(rows[6]?.request).toEqual({
      latitude: 44.6,
      longitude: -123.6,
      species_code: 'PSME',
      planting_method: 'manual',
    })
    expect(rows[0]?.request?.treatments).toEqual({
      vegetation_control: 'site_prep_release_2yr',
      animal_protection: 'mesh_tubes',
      stock_type: 'container',
      shade: 'shade_cards',
    })
  })

  it('NDJSON treatments: flat fields or a `treatments` object (not both), null as absent; not echoed', async () => {
    const body = {
      id: 'p',
      latitude: 44.6,
      longitude: -123.6,
      species_code: 'PSME',
      planting_method: 'manual',
    }
    const lines = [
      { ...body, vegetation_control: 'site_prep' },
      { ...body, animal_protection: 'mesh_tubes' },
      { ...body, stock_type: 'container' },
      { ...body, shade: 'shade_cards' },
      {
        ...body,
        vegetation_control: 'release_2yr',
        animal_protection: 'none',
        stock_type: 'bareroot',
        shade: 'none',
      },
      { ...body, treatments: { vegetation_control: 'site_prep_release_1yr', shade: 'shade_cards' } },
      { ...body, treatments: { animal_protection: 'mesh_tubes', stock_type: null } },
      { ...body, treatments: {} },
      { ...body, treatments: null },
      { ...body, vegetation_control: null, animal_protection: null, stock_type: null, shade: null },
      { ...body, vegetation_control: null, treatments: { stock_type: 'container' } },
      { ...body, vegetation_control: 'none', treatments: null },
      { ...body, planting_method: 'drone_seeded', animal_protection: 'mesh_tubes' },
      { ...body, vegetation_control: 'herbicide' },
      { ...body, vegetation_control: '' },
      { ...body, animal_protection: 7 },
      { ...body, stock_type: 'Container' },
      { ...body, shade: ['shade_cards'] },
      { ...body, treatments: { shade: 'dark' } },
      { ...body, treatments: { vegetation_control: 'site_prep', fertiliser: 'yes' } },
      { ...body, treatments: { fertiliser: 'yes', stock_type: 'plug' } },
      { ...body, treatments: 'mesh_tubes' },
      { ...body, treatments: ['mesh_tubes'] },
      { ...body, vegetation_control: 'site_prep', treatments: { shade: 'shade_cards' } },
      { ...body, shade: 'none', treatments: {} },
      { ...body, shade: 'bad', treatments: { stock_type: 'container' } },
      { ...body, colour: 'red', vegetation_control: 'bad' },
      { ...body, colour: 'red', vegetation_control: 'site_prep', treatments: { shade: 'none' } },
      { ...body, period: '2041-2070', climate: {}, shade: 'none', treatments: {} },
      {
        ...body,
        period: '2041-2070',
        scenario: 'ssp245',
        treatments: { vegetation_control: 'release_1yr' },
      },
    ].map((line) => JSON.stringify(line))
    const { rows } = await rowsOf('treatments.ndjson', `${lines.join('\n')}\n`, 'ndjson')
    const server = serverNdjson(lines.join('\n'))
    expect(rows.map(clientView)).toEqual(server)
    // Treatments are not among an NDJSON input's echoed columns, on either side.
    expect(new Set(rows.map((row) => row.cells.length))).toEqual(new Set([NDJSON_COLUMNS.length]))
    expect(server.map((row) => row.treatments ?? row.message)).toEqual([
      { vegetation_control: 'site_prep' },
      { animal_protection: 'mesh_tubes' },
      { stock_type: 'container' },
      { shade: 'shade_cards' },
      { vegetation_control: 'release_2yr', animal_protection: 'none', stock_type: 'bareroot', shade: 'none' },
      { vegetation_control: 'site_prep_release_1yr', shade: 'shade_cards' },
      { animal_protection: 'mesh_tubes' },
      null,
      null,
      null,
      { stock_type: 'container' },
      { vegetation_control: 'none' },
      { animal_protection: 'mesh_tubes' },
      'vegetation_control must be one of none, site_prep, release_1yr, release_2yr, site_prep_release_1yr, site_prep_release_2yr',
      'vegetation_control must be one of none, site_prep, release_1yr, release_2yr, site_prep_release_1yr, site_prep_release_2yr',
      'animal_protection must be one of none, mesh_tubes',
      'stock_type must be one of bareroot, container',
      'shade must be one of none, shade_cards',
      'treatments.shade must be one of none, shade_cards',
      'treatments.fertiliser is not a recognized field',
      'treatments.stock_type must be one of bareroot, container',
      'treatments must be an object {vegetation_control, animal_protection, stock_type, shade}',
      'treatments must be an object {vegetation_control, animal_protection, stock_type, shade}',
      'treatments cannot be given with vegetation_control, animal_protection, stock_type or shade',
      'treatments cannot be given with vegetation_control, animal_protection, stock_type or shade',
      'shade must be one of none, shade_cards',
      'vegetation_control must be one of none, site_prep, release_1yr, release_2yr, site_prep_release_1yr, site_prep_release_2yr',
      'colour is not a recognized field',
      'climate cannot be given with period or scenario',
      { vegetation_control: 'release_1yr' },
    ])
    expect(server.filter((row) => row.error !== null).every((row) => row.error === 'invalid_request')).toBe(
      true,
    )
    // Untreated lines (none named, an empty object, nulls) send the body as before: no `treatments`.
    for (const index of [7, 8, 9]) expect(rows[index]?.request).not.toHaveProperty('treatments')
  })
})

describe('--period and --scenario: the climate of the rows that name none', () => {
  const FUTURE = { period: '2041-2070', scenario: 'ssp245' }

  it('a CSV without climate columns gains them at the end; the upload reads on the server as the rows do', async () => {
    const text = [
      'id,latitude,longitude,species_code,planting_method,note',
      'a,44.6,-123.6,PSME,manual,"x, y"',
      'b,north,-123.6,PSME,manual,',
      'c,44.6,-123.6,PSME',
      'd,44.6,-123.6,PSME,manual,,extra,more',
    ].join('\n')
    const { file, rows } = await rowsOf('defaults.csv', text, 'csv', FUTURE)
    expect(await readColumns(file, 'csv', FUTURE)).toEqual([
      'id',
      'latitude',
      'longitude',
      'species_code',
      'planting_method',
      'note',
      'period',
      'scenario',
    ])
    expect(rows.map((row) => [row.cells.slice(6), row.error?.code ?? null])).toEqual([
      [['2041-2070', 'ssp245'], null],
      [['2041-2070', 'ssp245'], 'invalid_request'],
      [[], 'invalid_request'],
      [['extra', 'more', '', ''], 'invalid_request'],
    ])
    expect(rows[0]?.request?.climate).toEqual(FUTURE)
    const upload = await uploaded(file, 'csv', FUTURE)
    expect(upload.split('\r\n')[0]).toBe(
      'id,latitude,longitude,species_code,planting_method,note,period,scenario',
    )
    expect(serverCsv(upload)).toEqual(rows.map(clientView))
    // Without the flags, the file is read as it is.
    const { rows: plain } = await rowsOf('defaults.csv', text, 'csv')
    expect(plain[0]?.cells).toHaveLength(6)
    expect(plain[0]?.request).not.toHaveProperty('climate')
  })

  it('a row’s own climate wins, whole: only rows naming neither period nor scenario take the flags', async () => {
    const text = [
      'latitude,longitude,species_code,planting_method,period,scenario',
      '44.6,-123.6,PSME,manual,,',
      '44.6,-123.6,PSME,manual,1991_2020,',
      '44.6,-123.6,PSME,manual,,ssp585',
      '44.6,-123.6,PSME,manual,2071-2100,ssp370',
    ].join('\n')
    const { file, rows } = await rowsOf('own.csv', text, 'csv', { period: '2011-2040' })
    expect(rows.map((row) => row.request?.climate)).toEqual([
      { period: '2011-2040', scenario: null },
      { period: '1991_2020', scenario: null },
      { period: null, scenario: 'ssp585' },
      { period: '2071-2100', scenario: 'ssp370' },
    ])
    expect(serverCsv(await uploaded(file, 'csv', { period: '2011-2040' }))).toEqual(rows.map(clientView))
  })

  it('NDJSON lines that name no climate take the flags; others, and lines that fail, go up as they are', async () => {
    const body = { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' }
    const lines = [
      JSON.stringify(body),
      JSON.stringify({ ...body, period: null }),
      JSON.stringify({ ...body, period: '1991_2020' }),
      JSON.stringify({ ...body, climate: { period: '2071-2100', scenario: 'ssp585' } }),
      '{not json',
      '[1]',
    ]
    const { file, rows } = await rowsOf('defaults.ndjson', `${lines.join('\n')}\n`, 'ndjson', FUTURE)
    expect(rows.map((row) => row.request?.climate ?? row.error?.code)).toEqual([
      FUTURE,
      FUTURE,
      { period: '1991_2020', scenario: null },
      { period: '2071-2100', scenario: 'ssp585' },
      'invalid_json',
      'invalid_request',
    ])
    const upload = await uploaded(file, 'ndjson', FUTURE)
    expect(upload.split('\n').slice(2, 6)).toEqual(lines.slice(2, 6))
    expect(serverNdjson(upload)).toEqual(rows.map(clientView))
  })
})

describe('the output layout is the jobs API’s', () => {
  it('an NDJSON input: period and scenario after error_code; a CSV input: its columns, then the results', () => {
    expect(resultsAt('ndjson', NDJSON_COLUMNS)).toBe(6)
    expect(outputHeader('csv', NDJSON_COLUMNS, resultsAt('ndjson', NDJSON_COLUMNS))).toBe(
      'id,latitude,longitude,species_code,planting_method,horizons,survival_1y,survival_3y,survival_5y,top_factor_1y,top_factor_3y,top_factor_5y,error_code,period,scenario\r\n',
    )
    const csvColumns = ['latitude', 'longitude', 'species_code', 'planting_method', 'period', 'scenario']
    expect(resultsAt('csv', csvColumns)).toBe(6)
    const row: InputRow = {
      row: 3,
      cells: ['a', 44.6, -123.6, 'PSME', 'manual', null, '2041-2070', 'ssp245'],
    }
    const results = [0.9, null, null, 'Competing vegetation', null, null, null]
    expect(outputLine('ndjson', NDJSON_COLUMNS, row, results, 6)).toBe(
      '{"row":3,"id":"a","latitude":44.6,"longitude":-123.6,"species_code":"PSME","planting_method":"manual","horizons":null,"survival_1y":0.9,"survival_3y":null,"survival_5y":null,"top_factor_1y":"Competing vegetation","top_factor_3y":null,"top_factor_5y":null,"error_code":null,"period":"2041-2070","scenario":"ssp245"}\n',
    )
  })

  it('a row with too few or too many cells fills exactly the header’s columns, as the server pads it', () => {
    const columns = ['latitude', 'longitude', 'species_code', 'planting_method']
    const empty = [null, null, null, null, null, null, 'invalid_request']
    expect(outputLine('csv', columns, { row: 1, cells: ['44.6'] }, empty)).toBe(
      '44.6,,,,,,,,,,invalid_request\r\n',
    )
    expect(outputLine('csv', columns, { row: 2, cells: ['1', '2', '3', '4', '5'] }, empty)).toBe(
      '1,2,3,4,,,,,,,invalid_request\r\n',
    )
  })
})

describe('the resume state', () => {
  it('is the run’s only for the same --period and --scenario: a rerun with others starts over', () => {
    const input = join(dir, 'state-input.csv')
    writeFileSync(input, 'latitude,longitude,species_code,planting_method\n44.6,-123.6,PSME,manual\n')
    const out = join(dir, 'state-out.csv')
    const identity = inputIdentity(input)
    const state = (climate?: ClimateDefaults): ScoreState => ({
      version: 1,
      input: identity,
      out_format: 'csv',
      base_url: 'http://localhost:8080',
      via: 'batch',
      bytes_written: 10,
      rows_written: 1,
      errors_by_code: {},
      ...(climate ? { climate } : {}),
    })
    saveState(out, state({ period: '2041-2070', scenario: 'ssp245' }))
    expect(loadState(out, identity, 'csv', { period: '2041-2070', scenario: 'ssp245' })).toMatchObject({
      rows_written: 1,
    })
    expect(loadState(out, identity, 'csv', { scenario: 'ssp245', period: '2041-2070' })).not.toBeNull()
    expect(loadState(out, identity, 'csv', { period: '2071-2100', scenario: 'ssp245' })).toBeNull()
    expect(loadState(out, identity, 'csv')).toBeNull()
    // A state saved before the flags existed is a run without them.
    saveState(out, state())
    expect(loadState(out, identity, 'csv')).not.toBeNull()
    expect(loadState(out, identity, 'csv', { period: '2041-2070' })).toBeNull()
  })
})

describe('GeoJSON input and output', () => {
  it('is told by the extension: .geojson in and out; .json stays NDJSON as before', () => {
    expect(
      ['units.geojson', 'UNITS.GeoJSON', 'sites.csv', 'sites.ndjson', 'x.json'].map(inputFormatOf),
    ).toEqual(['geojson', 'geojson', 'csv', 'ndjson', 'ndjson'])
    expect(['planned.geojson', 'planned.csv', 'planned.jsonl'].map(outputFormatOf)).toEqual([
      'geojson',
      'csv',
      'ndjson',
    ])
  })

  it('opens as a JSON object (a byte order mark and blank lines first are fine), else a usage error', async () => {
    const file = (name: string, text: string) => {
      const path = join(dir, name)
      writeFileSync(path, text)
      return path
    }
    await expect(checkGeoJson(file('ok.geojson', '\uFEFF\n  {"type": "FeatureCollection"'))).resolves.toBe(
      undefined,
    )
    await expect(checkGeoJson(file('csv.geojson', 'latitude,longitude\n'))).rejects.toThrow(InputError)
    await expect(checkGeoJson(file('empty.geojson', '\n \n'))).rejects.toThrow(/is empty/)
  })

  it('the resume state is the run’s only for the same defaults, in any order', () => {
    const input = join(dir, 'state-input.geojson')
    writeFileSync(input, '{"type": "FeatureCollection", "features": []}')
    const out = join(dir, 'state-out.geojson')
    const identity = inputIdentity(input)
    saveState(out, {
      version: 1,
      input: identity,
      out_format: 'geojson',
      base_url: 'http://localhost:8080',
      via: 'job',
      defaults: { planting_method: 'manual', trees_per_acre: 400 },
      bytes_written: 0,
      rows_written: 0,
      errors_by_code: {},
      job_id: 'job_000000000000000000000000',
    })
    const load = (defaults?: Record<string, string | number>) =>
      loadState(out, identity, 'geojson', undefined, defaults)
    expect(load({ trees_per_acre: 400, planting_method: 'manual' })).toMatchObject({
      job_id: expect.any(String),
    })
    expect(load({ planting_method: 'manual' })).toBeNull()
    expect(load({ planting_method: 'drone_seeded', trees_per_acre: 400 })).toBeNull()
    expect(load()).toBeNull()
    expect(
      loadState(out, identity, 'csv', undefined, { planting_method: 'manual', trees_per_acre: 400 }),
    ).toBeNull()
  })
})

describe('progress lines', () => {
  it('read as counts, percentage, rate and ETA', () => {
    expect(progressLine('rows', 12_000, 50_000, 3100, 12.4)).toBe(
      '12,000/50,000 rows (24%), 3,100 rows/s, ETA 12 s',
    )
    expect(progressLine('rows', 0, 50_000, null, null)).toBe('0/50,000 rows (0%)')
    expect(progressLine('bytes', 1536, 1024 * 1024 * 3, 2048, 200)).toBe(
      '1.5 KiB/3 MiB (0%), 2 KiB/s, ETA 3 min 20 s',
    )
    expect(progressLine('features', 300, 1500, 120, 10)).toBe(
      '300/1,500 features (20%), 120 features/s, ETA 10 s',
    )
    expect(duration(7260)).toBe('2 h 1 min')
  })
})
