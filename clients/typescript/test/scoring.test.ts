import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, describe, expect, it } from 'vitest'
import { csvLayout, csvRow, ndjsonRow } from '../../../src/domain/jobs/job-rows.ts'
import { duration, progressLine } from '../src/scoring/progress.ts'
import { countRows, type InputRow, readRows } from '../src/scoring/rows.ts'

const dir = mkdtempSync(join(tmpdir(), 'scoring-rows-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function rowsOf(name: string, text: string, format: 'csv' | 'ndjson') {
  const file = join(dir, name)
  writeFileSync(file, text)
  const rows: InputRow[] = []
  for await (const row of readRows(file, format)) rows.push(row)
  return { rows, count: await countRows(file, format) }
}

/** What the server's upload check makes of a row: failed with a code, or to be scored with this body. */
const serverView = (row: { c: unknown[]; q?: unknown; e?: { code: string } }) => ({
  cells: row.c,
  error: row.e?.code ?? null,
  scored: Boolean(row.q),
})
const clientView = (row: InputRow) => ({
  cells: row.cells,
  error: row.error?.code ?? null,
  scored: Boolean(row.request),
})

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
    const records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][]
    const layout = csvLayout(records[0] as string[])
    const server = records.slice(1).map((cells, index) => serverView(csvRow(layout, index + 1, cells)))
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
    ]
      .map((line) => JSON.stringify(line))
      .concat(['{"latitude": 44.6,', '[1, 2]', '"text"', '   ', 'null'])
    const { rows, count } = await rowsOf('rows.ndjson', `${lines.join('\n')}\r\n`, 'ndjson')
    const server = lines
      .filter((line) => line.trim() !== '')
      .map((line, index) => serverView(ndjsonRow(index + 1, line)))
    expect(rows.map(clientView)).toEqual(server)
    expect(count).toBe(server.length)
    expect(server.filter((row) => row.scored)).toHaveLength(2)
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
    expect(duration(7260)).toBe('2 h 1 min')
  })
})
