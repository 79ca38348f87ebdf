import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FakeSiteLookup, FOREST_POINTS, NO_DATA_POINT } from '../../test/support/fakes.ts'
import { NDJSON_RESULTS_HEADER } from '../../test/support/job-columns.ts'
import type { InputRow } from '../domain/jobs/file-formats.ts'
import { PredictionService } from '../domain/prediction-service.ts'
import type { BatchItemResult } from '../domain/prediction-types.ts'
import { SPECIES } from '../domain/species.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { csvHeader, RESULT_COLUMNS, renderChunk, resultsAt } from './job-output.ts'
import { csvLayout, csvRow, NDJSON_COLUMNS, ndjsonRow } from './job-rows.ts'

const predictions = new PredictionService(
  loadSurvivalModel(SPECIES),
  new FakeSiteLookup(),
  () => new Date('2026-11-22T12:00:00Z'),
)

/** The rows scored as a job's chunk is: only the rows that passed their check reach the service. */
async function render(columns: readonly string[], rows: readonly InputRow[]) {
  const requests = rows.flatMap((row) => (row.q ? [row.q] : []))
  // scoreRows answers a generator: read it once, keep the results to compare with.
  const scored: BatchItemResult[] = requests.length > 0 ? [...(await predictions.scoreRows(requests))] : []
  return { rendered: renderChunk(columns, rows, scored[Symbol.iterator]()), scored }
}

const CSV_COLUMNS = ['plot', 'latitude', 'longitude', 'species_code', 'planting_method', 'horizons']
const layout = csvLayout(CSV_COLUMNS)
const { coastRange, westCascades } = FOREST_POINTS

/** A job's rows: scored fine, failed at scoring (species, no data), failed their own check. */
const MIXED_ROWS: InputRow[] = [
  csvRow(layout, 1, [
    'a, "first"',
    `${coastRange.latitude}`,
    `${coastRange.longitude}`,
    'PSME',
    'manual',
    '',
  ]),
  csvRow(layout, 2, ['b', `${westCascades.latitude}`, `${westCascades.longitude}`, 'TSHE', 'manual', '5|1']),
  csvRow(layout, 3, ['c', `${coastRange.latitude}`, `${coastRange.longitude}`, 'NOPE', 'manual', '']),
  csvRow(layout, 4, [
    'd\r\nline',
    `${NO_DATA_POINT.latitude}`,
    `${NO_DATA_POINT.longitude}`,
    'PSME',
    'manual',
    '3',
  ]),
  csvRow(layout, 5, ['e', 'north', '-123.6', 'PSME', 'manual', '']),
  csvRow(layout, 6, ['f', '44.6']),
]

/** A CSV cell's text for a value of the NDJSON rendering: what the two formats must agree on. */
function asCell(value: unknown): string {
  if (value === null) return ''
  if (Array.isArray(value)) return value.join('|')
  return String(value)
}

function parsedCsv(text: string): string[][] {
  return parse(text, { relax_column_count: false }) as string[][]
}

describe('renderChunk', () => {
  it('renders each row in CSV and NDJSON alike: same columns, same values, in input order', async () => {
    const { rendered } = await render(CSV_COLUMNS, MIXED_ROWS)
    const header = parsedCsv(csvHeader(CSV_COLUMNS))[0] as string[]
    expect(header).toEqual([...CSV_COLUMNS, ...RESULT_COLUMNS])

    const csvRows = parsedCsv(rendered.csv)
    const ndjsonRows = rendered.ndjson
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(csvRows).toHaveLength(MIXED_ROWS.length)
    expect(ndjsonRows).toHaveLength(MIXED_ROWS.length)
    expect(rendered.ndjson.endsWith('\n')).toBe(true)
    expect(rendered.csv.endsWith('\r\n')).toBe(true)

    for (const [index, line] of ndjsonRows.entries()) {
      expect(line.row).toBe(index + 1)
      expect(Object.keys(line)).toEqual(['row', ...header])
      expect(header.map((name) => asCell(line[name]))).toEqual(csvRows[index])
    }
  })

  it('fills survival and the top factor of each requested horizon from the prediction', async () => {
    const { rendered, scored } = await render(CSV_COLUMNS, MIXED_ROWS)
    const [first, second] = scored
    if (!first?.ok || !second?.ok) throw new Error('the first two rows should have been scored')
    const lines = rendered.ndjson
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)

    const allThree = first.prediction.predictions
    expect(lines[0]).toMatchObject({
      survival_1y: allThree[0]?.survivalProbability,
      survival_3y: allThree[1]?.survivalProbability,
      survival_5y: allThree[2]?.survivalProbability,
      top_factor_1y: allThree[0]?.contributions[0]?.factor,
      top_factor_3y: allThree[1]?.contributions[0]?.factor,
      top_factor_5y: allThree[2]?.contributions[0]?.factor,
      error_code: null,
    })
    expect(typeof lines[0]?.survival_1y).toBe('number')

    // Asked for 5 and 1: those two columns, 3 years left empty.
    const at = (years: number) => second.prediction.predictions.find((p) => p.horizonYears === years)
    const [one, five] = [at(1), at(5)]
    expect(at(3)).toBeUndefined()
    expect(lines[1]).toMatchObject({
      survival_1y: one?.survivalProbability,
      survival_3y: null,
      survival_5y: five?.survivalProbability,
      top_factor_1y: one?.contributions[0]?.factor,
      top_factor_3y: null,
      top_factor_5y: five?.contributions[0]?.factor,
      error_code: null,
    })
    const csvSecond = parsedCsv(rendered.csv)[1] as string[]
    expect(csvSecond.slice(CSV_COLUMNS.length)).toEqual([
      String(one?.survivalProbability),
      '',
      String(five?.survivalProbability),
      String(one?.contributions[0]?.factor),
      '',
      String(five?.contributions[0]?.factor),
      '',
    ])
  })

  it('gives a failed row its error code and empty survival, and counts failures by code', async () => {
    const { rendered } = await render(CSV_COLUMNS, MIXED_ROWS)
    const csvRows = parsedCsv(rendered.csv)
    const results = csvRows.map((cells) => cells.slice(CSV_COLUMNS.length))
    const empty = ['', '', '', '', '', '']
    expect(results[2]).toEqual([...empty, 'invalid_species'])
    expect(results[3]).toEqual([...empty, 'no_nearby_data'])
    expect(results[4]).toEqual([...empty, 'invalid_request'])
    expect(results[5]).toEqual([...empty, 'invalid_request'])
    expect(rendered).toMatchObject({
      rowsDone: 6,
      rowsFailed: 4,
      errors: { invalid_species: 1, no_nearby_data: 1, invalid_request: 2 },
    })
  })

  it('pads a row with too few cells (and cuts one with too many) to the header’s column count', async () => {
    const columns = ['latitude', 'longitude', 'species_code', 'planting_method']
    const four = csvLayout(columns)
    const rows = [
      csvRow(four, 1, ['44.6']),
      csvRow(four, 2, ['44.6', '-123.6', 'PSME', 'manual', 'extra', 'more']),
    ]
    const { rendered } = await render(columns, rows)
    const csvRows = parsedCsv(rendered.csv)
    expect(csvRows.map((cells) => cells.length)).toEqual([11, 11])
    expect(csvRows[0]?.slice(0, 4)).toEqual(['44.6', '', '', ''])
    expect(csvRows[1]?.slice(0, 4)).toEqual(['44.6', '-123.6', 'PSME', 'manual'])
    const first = JSON.parse(rendered.ndjson.split('\n')[0] ?? '') as Record<string, unknown>
    expect(first).toMatchObject({
      latitude: '44.6',
      longitude: null,
      species_code: null,
      planting_method: null,
    })
  })

  it('echoes NDJSON values as sent: numbers, an id, horizons joined with | in CSV', async () => {
    const rows = [
      ndjsonRow(
        1,
        JSON.stringify({
          id: 7,
          ...coastRange,
          species_code: 'PSME',
          planting_method: 'manual',
          horizons: [1, 5],
        }),
      ),
      ndjsonRow(2, '{"latitude": 44.6, "longitude": "west"}'),
      ndjsonRow(3, 'not json'),
    ]
    const { rendered } = await render(NDJSON_COLUMNS, rows)
    const csvRows = parsedCsv(rendered.csv)
    expect(csvRows[0]?.slice(0, 6)).toEqual(['7', '44.6', '-123.6', 'PSME', 'manual', '1|5'])
    expect(csvRows[1]?.slice(0, 6)).toEqual(['', '44.6', 'west', '', '', ''])
    expect(csvRows[2]?.at(-1)).toBe('invalid_json')
    const lines = rendered.ndjson
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines[0]).toMatchObject({ row: 1, id: 7, latitude: 44.6, horizons: [1, 5] })
    expect(lines[2]).toMatchObject({ row: 3, id: null, latitude: null, error_code: 'invalid_json' })
  })

  it('throws when the scored results run out before the rows to score', () => {
    const rows = [csvRow(layout, 1, ['a', '44.6', '-123.6', 'PSME', 'manual', ''])]
    expect(() => renderChunk(CSV_COLUMNS, rows, [][Symbol.iterator]())).toThrow(/fewer results than rows/)
  })

  it('renders no rows as nothing', () => {
    expect(renderChunk(CSV_COLUMNS, [], [][Symbol.iterator]())).toEqual({
      csv: '',
      ndjson: '',
      geojson: '',
      rowsDone: 0,
      rowsFailed: 0,
      errors: {},
    })
  })

  it('quotes any echoed cell so that the CSV reads back to the same cells (header included)', () => {
    const cell = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom('"', ',', '\r', '\n', 'a', ' ', 'é') }),
    )
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(cell, { maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        (columns, cellRows) => {
          // Rows that failed their own check: nothing to score, their cells echoed as sent.
          const rows: InputRow[] = cellRows.map((cells, index) => ({
            r: index + 1,
            c: cells,
            e: { code: 'invalid_request', message: 'the row is invalid' },
          }))
          const { csv } = renderChunk(columns, rows, [][Symbol.iterator]())
          const back = parsedCsv(csvHeader(columns) + csv)
          expect(back[0]).toEqual([...columns, ...RESULT_COLUMNS])
          for (const [index, cells] of cellRows.entries()) {
            const echoed = columns.map((_, column) => cells[column] ?? '')
            expect(back[index + 1]).toEqual([...echoed, '', '', '', '', '', '', 'invalid_request'])
          }
        },
      ),
    )
  })
})

describe('the climate in a job’s results', () => {
  const CLIMATE_CSV = [
    'plot',
    'latitude',
    'longitude',
    'species_code',
    'planting_method',
    'period',
    'scenario',
    'note',
  ]
  const climateLayout = csvLayout(CLIMATE_CSV)
  const site = [`${coastRange.latitude}`, `${coastRange.longitude}`, 'TSHE', 'manual']
  /** One site under no climate, the baseline period, a future, and climates naming no known future. */
  const CLIMATE_ROWS: InputRow[] = [
    csvRow(climateLayout, 1, ['today', ...site, '', '', 'no climate']),
    csvRow(climateLayout, 2, ['baseline', ...site, '1991_2020', '', 'the baseline alone']),
    csvRow(climateLayout, 3, ['future', ...site, '2071-2100', 'ssp585', '']),
    csvRow(climateLayout, 4, ['no scenario', ...site, '2041-2070', '', '']),
    csvRow(climateLayout, 5, ['baseline+scenario', ...site, '1991_2020', 'ssp245', '']),
    csvRow(climateLayout, 6, ['unknown', ...site, '2050s', 'ssp245', '']),
    csvRow(climateLayout, 7, ['after', ...site, '', '', '']),
  ]

  it('fails only the rows naming no known future, with invalid_climate; the baseline is today’s, value for value', async () => {
    const { rendered } = await render(CLIMATE_CSV, CLIMATE_ROWS)
    const rows = parse(csvHeader(CLIMATE_CSV) + rendered.csv, { columns: true }) as Record<string, string>[]
    expect(rows.map((row) => [row.plot, row.error_code])).toEqual([
      ['today', ''],
      ['baseline', ''],
      ['future', ''],
      ['no scenario', 'invalid_climate'],
      ['baseline+scenario', 'invalid_climate'],
      ['unknown', 'invalid_climate'],
      ['after', ''],
    ])
    expect(rendered).toMatchObject({ rowsDone: 7, rowsFailed: 3, errors: { invalid_climate: 3 } })
    const [today, baseline, future, , , , after] = rows as Record<string, string>[]
    const results = (row: Record<string, string> | undefined) => RESULT_COLUMNS.map((name) => row?.[name])
    expect(results(baseline)).toEqual(results(today))
    expect(results(after)).toEqual(results(today))
    expect(Number(future?.survival_5y)).toBeGreaterThan(0)
    expect(future?.survival_5y).not.toBe(today?.survival_5y)
    // The CSV upload's own period and scenario columns are echoed where it put them.
    expect(rows.map((row) => [row.period, row.scenario])).toEqual([
      ['', ''],
      ['1991_2020', ''],
      ['2071-2100', 'ssp585'],
      ['2041-2070', ''],
      ['1991_2020', 'ssp245'],
      ['2050s', 'ssp245'],
      ['', ''],
    ])
  })

  it('a CSV job echoes its columns as uploaded, then the results, whatever columns it has', () => {
    expect(resultsAt('csv', CLIMATE_CSV)).toBe(CLIMATE_CSV.length)
    expect(parsedCsv(csvHeader(CLIMATE_CSV, resultsAt('csv', CLIMATE_CSV)))[0]).toEqual([
      ...CLIMATE_CSV,
      ...RESULT_COLUMNS,
    ])
  })

  it('an NDJSON job puts period and scenario after error_code, in both formats', async () => {
    const body = { ...coastRange, species_code: 'TSHE', planting_method: 'manual' }
    const rows = [
      ndjsonRow(1, JSON.stringify({ id: 'today', ...body })),
      ndjsonRow(2, JSON.stringify({ id: 'future', ...body, period: '2071-2100', scenario: 'ssp585' })),
      ndjsonRow(
        3,
        JSON.stringify({ id: 'nested', ...body, climate: { period: '2071-2100', scenario: 'ssp585' } }),
      ),
      ndjsonRow(4, JSON.stringify({ id: 'baseline', ...body, period: '1991_2020' })),
      ndjsonRow(5, JSON.stringify({ id: 'bad', ...body, period: '2071-2100' })),
    ]
    const at = resultsAt('ndjson', NDJSON_COLUMNS)
    expect(at).toBe(6)
    const laidOut = renderChunk(NDJSON_COLUMNS, rows, (await scoredFor(rows))[Symbol.iterator](), at)

    const header = parsedCsv(csvHeader(NDJSON_COLUMNS, at))[0]
    expect(header).toEqual(NDJSON_RESULTS_HEADER)
    const csvRows = parse(csvHeader(NDJSON_COLUMNS, at) + laidOut.csv, { columns: true }) as Record<
      string,
      string
    >[]
    expect(csvRows.map((row) => [row.id, row.period, row.scenario, row.error_code])).toEqual([
      ['today', '', '', ''],
      ['future', '2071-2100', 'ssp585', ''],
      ['nested', '2071-2100', 'ssp585', ''],
      ['baseline', '1991_2020', '', ''],
      ['bad', '2071-2100', '', 'invalid_climate'],
    ])
    expect(csvRows[2]?.survival_1y).toBe(csvRows[1]?.survival_1y)
    expect(csvRows[3]?.survival_1y).toBe(csvRows[0]?.survival_1y)
    expect(csvRows[1]?.survival_1y).not.toBe(csvRows[0]?.survival_1y)

    const lines = laidOut.ndjson
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(Object.keys(lines[0] ?? {})).toEqual(['row', ...(header as string[])])
    expect(lines[0]).toMatchObject({ id: 'today', period: null, scenario: null, error_code: null })
    expect(lines[1]).toMatchObject({ id: 'future', period: '2071-2100', scenario: 'ssp585' })
    for (const [index, line] of lines.entries())
      expect((header as string[]).map((name) => asCell(line[name]))).toEqual(parsedCsv(laidOut.csv)[index])
  })

  it('an NDJSON job stored before climate input (six columns) reads exactly as it did', async () => {
    const SIX = NDJSON_COLUMNS.slice(0, 6)
    expect(resultsAt('ndjson', SIX)).toBe(6)
    expect(csvHeader(SIX, resultsAt('ndjson', SIX))).toBe(
      'id,latitude,longitude,species_code,planting_method,horizons,survival_1y,survival_3y,survival_5y,top_factor_1y,top_factor_3y,top_factor_5y,error_code\r\n',
    )
    // A chunk stored then: six cells a row, no climate in its request.
    const stored: InputRow[] = [
      {
        r: 1,
        c: ['a', coastRange.latitude, coastRange.longitude, 'PSME', 'manual', [5]],
        q: { ...coastRange, speciesCode: 'PSME', plantingMethod: 'manual', horizons: [5] },
      },
      { r: 2, c: [], e: { code: 'invalid_json', message: 'the line is not valid JSON' } },
    ]
    const scored = await scoredFor(stored)
    const { csv, ndjson } = renderChunk(SIX, stored, scored[Symbol.iterator](), resultsAt('ndjson', SIX))
    const [first, second] = parsedCsv(csv)
    expect(first?.slice(0, 6)).toEqual(['a', '44.6', '-123.6', 'PSME', 'manual', '5'])
    expect(first).toHaveLength(13)
    expect(second).toEqual(['', '', '', '', '', '', '', '', '', '', '', '', 'invalid_json'])
    expect(Object.keys(JSON.parse(ndjson.split('\n')[0] ?? '') as object)).toEqual([
      'row',
      ...SIX,
      ...RESULT_COLUMNS,
    ])
  })
})

/** The scored results of the rows that passed their check, as a job's chunk gets them. */
async function scoredFor(rows: readonly InputRow[]): Promise<BatchItemResult[]> {
  const requests = rows.flatMap((row) => (row.q ? [row.q] : []))
  return requests.length > 0 ? [...(await predictions.scoreRows(requests))] : []
}
