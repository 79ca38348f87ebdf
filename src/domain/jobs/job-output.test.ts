import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FakeSiteLookup, FOREST_POINTS, NO_DATA_POINT } from '../../../test/support/fakes.ts'
import { loadSurvivalModel } from '../../model/index.ts'
import { PredictionService } from '../prediction-service.ts'
import type { BatchItemResult } from '../prediction-types.ts'
import { SPECIES } from '../species.ts'
import { csvHeader, RESULT_COLUMNS, renderChunk } from './job-output.ts'
import { csvLayout, csvRow, type InputRow, NDJSON_COLUMNS, ndjsonRow } from './job-rows.ts'

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
