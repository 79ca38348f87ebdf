import { describe, expect, it } from 'vitest'
import { NDJSON_JOB_COLUMNS } from '../../test/support/job-columns.ts'
import { ApiError } from '../domain/errors.ts'
import { csvLayout, csvRow, NDJSON_COLUMNS, ndjsonRow } from './job-rows.ts'

const HEADER = ['latitude', 'longitude', 'species_code', 'planting_method']
const layout = csvLayout(HEADER)

/** The invalid_request ApiError `csvLayout(header)` throws (fails the test when it does not throw one). */
function headerError(header: readonly string[]): ApiError {
  let thrown: unknown
  try {
    csvLayout(header)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(ApiError)
  const error = thrown as ApiError
  expect(error.code).toBe('invalid_request')
  expect(error.details).toMatchObject({ field: 'header' })
  return error
}

/** A CSV row over the four required columns (+ horizons when given). */
function row(lat: string, lon: string, species = 'PSME', method = 'manual', horizons?: string) {
  if (horizons === undefined) return csvRow(layout, 1, [lat, lon, species, method])
  return csvRow(csvLayout([...HEADER, 'horizons']), 1, [lat, lon, species, method, horizons])
}

describe('csvLayout: the header', () => {
  it('finds the required columns in any order and any case, trimming names but keeping their case', () => {
    const found = csvLayout([' Planting_Method', 'SPECIES_CODE ', 'Longitude', 'LATITUDE'])
    expect(found.columns).toEqual(['Planting_Method', 'SPECIES_CODE', 'Longitude', 'LATITUDE'])
    expect(found.at).toEqual({ planting_method: 0, species_code: 1, longitude: 2, latitude: 3 })
  })

  it('places the optional horizons and id columns, and keeps any other column to echo', () => {
    const header = [
      'plot',
      'ID',
      'latitude',
      'note',
      'longitude',
      'species_code',
      'planting_method',
      'Horizons',
    ]
    // A copy goes in: the columns are checked against names csvLayout never held.
    const found = csvLayout([...header])
    expect(found.columns).toEqual(header)
    expect(found.at).toEqual({
      id: 1,
      latitude: 2,
      longitude: 4,
      species_code: 5,
      planting_method: 6,
      horizons: 7,
    })
  })

  it('names the one missing column, or every missing column', () => {
    expect(headerError(['latitude', 'longitude', 'species_code']).details).toEqual({
      field: 'header',
      reason:
        'lacks the column planting_method (it needs latitude, longitude, species_code, planting_method)',
    })
    expect(headerError(['lat', 'lon', 'species_code', 'planting_method']).message).toBe(
      'header lacks the columns latitude, longitude (it needs latitude, longitude, species_code, planting_method)',
    )
    expect(headerError([]).message).toMatch(/^header lacks the columns latitude, longitude, species_code/)
  })

  it('refuses a repeated column, whatever its case or spaces', () => {
    expect(headerError([...HEADER, 'Latitude ']).details).toEqual({
      field: 'header',
      reason: 'repeats the column "latitude"',
    })
    expect(headerError([...HEADER, 'note', 'NOTE']).message).toBe('header repeats the column "note"')
  })

  it('refuses a column without a name, saying which (1-based)', () => {
    expect(headerError(['latitude', '  ', ...HEADER.slice(1)]).details).toEqual({
      field: 'header',
      reason: 'column 2 has no name',
    })
  })

  it('takes 100 columns and refuses 101', () => {
    const extra = (count: number) => Array.from({ length: count }, (_, index) => `extra_${index}`)
    expect(csvLayout([...HEADER, ...extra(96)]).columns).toHaveLength(100)
    expect(headerError([...HEADER, ...extra(97)]).details).toEqual({
      field: 'header',
      reason: 'has more than 100 columns',
    })
  })
})

describe('csvRow', () => {
  it('turns a row into a prediction request, echoing its cells as sent', () => {
    const cells = ['44.6', '-123.6', 'PSME', 'manual']
    expect(csvRow(layout, 7, cells)).toEqual({
      r: 7,
      c: cells,
      q: { latitude: 44.6, longitude: -123.6, speciesCode: 'PSME', plantingMethod: 'manual', horizons: null },
    })
  })

  it('reads cells by the header, in whatever order it put the columns', () => {
    const shuffled = csvLayout(['note', 'planting_method', 'longitude', 'species_code', 'latitude'])
    expect(csvRow(shuffled, 1, ['hello', 'drone_seeded', '-121.6', 'PIPO', '44']).q).toEqual({
      latitude: 44,
      longitude: -121.6,
      speciesCode: 'PIPO',
      plantingMethod: 'drone_seeded',
      horizons: null,
    })
  })

  it('reads numbers with spaces around them, signs, exponents and bare decimal points', () => {
    expect(row(' 44.6 ', '\t-123.6', ' PSME ', 'manual ').q).toMatchObject({
      latitude: 44.6,
      longitude: -123.6,
      speciesCode: 'PSME',
      plantingMethod: 'manual',
    })
    expect(row('4.46e1', '-1.236E+2').q).toMatchObject({ latitude: 44.6, longitude: -123.6 })
    expect(row('+44.', '-.5').q).toMatchObject({ latitude: 44, longitude: -0.5 })
  })

  it('calls an empty or blank number cell required', () => {
    expect(row('', '-123.6').e).toEqual({ code: 'invalid_request', message: 'latitude is required' })
    expect(row('44.6', '   ').e).toEqual({ code: 'invalid_request', message: 'longitude is required' })
  })

  it('refuses a cell that is not a plain decimal number', () => {
    for (const text of ['north', '0x2C', '44,6', 'Infinity', 'NaN', '1e', '--1', '44.6.1']) {
      expect(row(text, '-123.6').e, text).toEqual({
        code: 'invalid_request',
        message: 'latitude must be a number',
      })
    }
  })

  it('checks ranges like a predict body', () => {
    expect(row('90.5', '-123.6').e).toEqual({
      code: 'invalid_request',
      message: 'latitude must be from -90 to 90',
    })
    expect(row('44', '-180.01').e?.message).toBe('longitude must be from -180 to 180')
    expect(row('1e400', '-123.6').e?.code).toBe('invalid_request')
  })

  it('calls an empty species or method required, and leaves unknown codes to the scoring', () => {
    expect(row('44.6', '-123.6', ' ', 'manual').e?.message).toBe('species_code is required')
    expect(row('44.6', '-123.6', 'PSME', '').e?.message).toBe('planting_method is required')
    expect(row('44.6', '-123.6', 'NOPE', 'by_hand').q).toMatchObject({
      speciesCode: 'NOPE',
      plantingMethod: 'by_hand',
    })
  })

  it('reads horizons separated by |, ; or spaces; empty means all', () => {
    expect(row('44.6', '-123.6', 'PSME', 'manual', '1|3|5').q?.horizons).toEqual([1, 3, 5])
    expect(row('44.6', '-123.6', 'PSME', 'manual', '5').q?.horizons).toEqual([5])
    expect(row('44.6', '-123.6', 'PSME', 'manual', '1;3').q?.horizons).toEqual([1, 3])
    expect(row('44.6', '-123.6', 'PSME', 'manual', ' 3 1 ').q?.horizons).toEqual([3, 1])
    expect(row('44.6', '-123.6', 'PSME', 'manual', '').q?.horizons).toBeNull()
    expect(row('44.6', '-123.6', 'PSME', 'manual', '  ').q?.horizons).toBeNull()
  })

  it('refuses horizons other than 1, 3 and 5, or that are not numbers', () => {
    expect(row('44.6', '-123.6', 'PSME', 'manual', '2').e).toEqual({
      code: 'invalid_request',
      message: 'horizons may only contain 1, 3 and 5',
    })
    expect(row('44.6', '-123.6', 'PSME', 'manual', '1|x').e?.message).toBe('horizons[1] must be a number')
    expect(row('44.6', '-123.6', 'PSME', 'manual', '1.5').e?.message).toBe('horizons[0] must be 1, 3 or 5')
  })

  it('refuses a row with more or fewer cells than the header, keeping its cells', () => {
    const short = csvRow(layout, 4, ['44.6', '-123.6', 'PSME'])
    expect(short).toEqual({
      r: 4,
      c: ['44.6', '-123.6', 'PSME'],
      e: { code: 'invalid_request', message: 'the row has 3 cells; the header has 4' },
    })
    expect(csvRow(layout, 5, ['44.6', '-123.6', 'PSME', 'manual', 'extra']).e?.message).toBe(
      'the row has 5 cells; the header has 4',
    )
  })

  it('takes an id cell as text (trimmed), ignores an empty one, and refuses one over 200 characters', () => {
    const withId = csvLayout(['id', ...HEADER])
    expect(csvRow(withId, 1, [' plot-7 ', '44.6', '-123.6', 'PSME', 'manual']).q).toBeDefined()
    expect(csvRow(withId, 1, ['', '44.6', '-123.6', 'PSME', 'manual']).q).toBeDefined()
    expect(csvRow(withId, 1, ['x'.repeat(201), '44.6', '-123.6', 'PSME', 'manual']).e).toEqual({
      code: 'invalid_request',
      message: 'id must be at most 200 characters',
    })
  })
})

describe('csvRow: the climate columns', () => {
  const climateLayout = csvLayout(['id', ...HEADER, 'Period', 'SCENARIO', 'notes'])
  const climateRow = (period: string, scenario: string) =>
    csvRow(climateLayout, 1, ['a', '44.6', '-123.6', 'PSME', 'manual', period, scenario, 'x'])

  it('places period and scenario (any letter case) as optional columns, echoing them where they are', () => {
    expect(climateLayout.at).toMatchObject({ period: 5, scenario: 6 })
    expect(climateLayout.columns).toEqual(['id', ...HEADER, 'Period', 'SCENARIO', 'notes'])
    expect(climateRow(' 2041-2070 ', 'ssp245').c).toEqual([
      'a',
      '44.6',
      '-123.6',
      'PSME',
      'manual',
      ' 2041-2070 ',
      'ssp245',
      'x',
    ])
  })

  it('asks for the climate a row names, trimmed, leaving whether it is known to the scoring', () => {
    expect(climateRow(' 2041-2070 ', 'ssp245 ').q?.climate).toEqual({
      period: '2041-2070',
      scenario: 'ssp245',
    })
    expect(climateRow('1991_2020', '').q?.climate).toEqual({ period: '1991_2020', scenario: null })
    expect(climateRow('', 'ssp585').q?.climate).toEqual({ period: null, scenario: 'ssp585' })
    // Unknown identifiers pass the row check: scoring fails the row with invalid_climate.
    expect(climateRow('2050s', 'rcp85').q?.climate).toEqual({ period: '2050s', scenario: 'rcp85' })
  })

  it('reads empty climate cells as no climate: the request is exactly one without the columns', () => {
    const plain = csvRow(layout, 1, ['44.6', '-123.6', 'PSME', 'manual'])
    expect(climateRow('', '').q).toEqual(plain.q)
    expect(climateRow('  ', '\t').q).toEqual(plain.q)
    expect(climateRow('', '').q).not.toHaveProperty('climate')
  })

  it('refuses a climate cell over 40 characters, like a predict body', () => {
    expect(climateRow('x'.repeat(41), 'ssp245').e).toEqual({
      code: 'invalid_request',
      message: 'period is too long',
    })
  })

  it('a header with only one of the two still reads', () => {
    const periodOnly = csvLayout([...HEADER, 'period'])
    expect(csvRow(periodOnly, 1, ['44.6', '-123.6', 'PSME', 'manual', '1991_2020']).q?.climate).toEqual({
      period: '1991_2020',
      scenario: null,
    })
  })

  it('refuses a repeated climate column, like any other', () => {
    expect(headerError([...HEADER, 'period', 'Period']).message).toBe('header repeats the column "period"')
  })
})

describe('ndjsonRow', () => {
  const body = { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' }

  it('turns a predict body into a request, echoing the NDJSON columns (null when absent)', () => {
    expect(ndjsonRow(3, JSON.stringify(body))).toEqual({
      r: 3,
      c: [null, 44.6, -123.6, 'PSME', 'manual', null, null, null],
      q: { latitude: 44.6, longitude: -123.6, speciesCode: 'PSME', plantingMethod: 'manual', horizons: null },
    })
    expect(NDJSON_COLUMNS).toEqual(NDJSON_JOB_COLUMNS)
  })

  it('reads horizons as an array, and refuses anything else there', () => {
    const line = ndjsonRow(1, JSON.stringify({ ...body, horizons: [5, 1] }))
    expect(line.q?.horizons).toEqual([5, 1])
    expect(line.c[5]).toEqual([5, 1])
    expect(ndjsonRow(1, JSON.stringify({ ...body, horizons: '1|3' })).e).toEqual({
      code: 'invalid_request',
      message: 'horizons must be an array of 1, 3 and 5',
    })
    expect(ndjsonRow(1, JSON.stringify({ ...body, horizons: [2] })).e?.message).toBe(
      'horizons may only contain 1, 3 and 5',
    )
    expect(ndjsonRow(1, JSON.stringify({ ...body, horizons: [] })).e?.message).toBe(
      'horizons must hold at least one of 1, 3, 5',
    )
  })

  it('takes an id as a string or a whole number, and echoes it first', () => {
    expect(ndjsonRow(1, JSON.stringify({ id: 'plot-7', ...body })).c[0]).toBe('plot-7')
    expect(ndjsonRow(1, JSON.stringify({ id: 'plot-7', ...body })).q).toBeDefined()
    expect(ndjsonRow(1, JSON.stringify({ id: 42, ...body })).q).toBeDefined()
    expect(ndjsonRow(1, JSON.stringify({ id: 4.2, ...body })).e?.code).toBe('invalid_request')
    expect(ndjsonRow(1, JSON.stringify({ id: true, ...body })).e?.code).toBe('invalid_request')
  })

  it('refuses a line that is not JSON with invalid_json', () => {
    for (const line of ['{', 'latitude=44', "{'latitude': 44}", '']) {
      expect(ndjsonRow(9, line), line).toEqual({
        r: 9,
        c: [],
        e: { code: 'invalid_json', message: 'the line is not valid JSON' },
      })
    }
  })

  it('refuses JSON that is not an object', () => {
    for (const line of ['[]', '[1,2]', '42', '"text"', 'null', 'true']) {
      expect(ndjsonRow(2, line), line).toEqual({
        r: 2,
        c: [],
        e: { code: 'invalid_request', message: 'the line must be a JSON object' },
      })
    }
  })

  it('takes the climate as period and scenario fields, or as a predict body’s climate, and echoes it flat', () => {
    const flat = ndjsonRow(1, JSON.stringify({ ...body, period: '2041-2070', scenario: 'ssp245' }))
    const nested = ndjsonRow(
      1,
      JSON.stringify({ ...body, climate: { period: '2041-2070', scenario: 'ssp245' } }),
    )
    for (const line of [flat, nested]) {
      expect(line.q?.climate).toEqual({ period: '2041-2070', scenario: 'ssp245' })
      expect(line.c).toEqual([null, 44.6, -123.6, 'PSME', 'manual', null, '2041-2070', 'ssp245'])
    }
    expect(ndjsonRow(1, JSON.stringify({ ...body, period: '1991_2020' })).q?.climate).toEqual({
      period: '1991_2020',
      scenario: null,
    })
    // Unknown identifiers pass the row check: scoring fails the row with invalid_climate.
    expect(ndjsonRow(1, JSON.stringify({ ...body, scenario: 'rcp85' })).q?.climate).toEqual({
      period: null,
      scenario: 'rcp85',
    })
  })

  it('reads absent or null climate fields as no climate: the request is exactly one without them', () => {
    const plain = ndjsonRow(1, JSON.stringify(body)).q
    expect(plain).not.toHaveProperty('climate')
    expect(ndjsonRow(1, JSON.stringify({ ...body, period: null, scenario: null })).q).toEqual(plain)
    expect(ndjsonRow(1, JSON.stringify({ ...body, climate: null })).q).toEqual(plain)
    expect(ndjsonRow(1, JSON.stringify({ ...body, climate: {} })).q).toEqual(plain)
  })

  it('refuses a mistyped climate, and a climate given both ways', () => {
    expect(ndjsonRow(1, JSON.stringify({ ...body, period: 2041 })).e).toEqual({
      code: 'invalid_request',
      message: 'period must be a string',
    })
    expect(ndjsonRow(1, JSON.stringify({ ...body, climate: '2041-2070' })).e?.message).toBe(
      'climate must be an object {period, scenario}',
    )
    expect(
      ndjsonRow(1, JSON.stringify({ ...body, climate: { period: '2041-2070', rcp: 8.5 } })).e?.message,
    ).toBe('climate.rcp is not a recognized field')
    const twice = ndjsonRow(
      4,
      JSON.stringify({ ...body, period: '2011-2040', climate: { period: '2041-2070', scenario: 'ssp245' } }),
    )
    expect(twice.e).toEqual({
      code: 'invalid_request',
      message: 'climate cannot be given with period or scenario',
    })
    expect(twice.c.slice(6)).toEqual(['2011-2040', 'ssp245'])
  })

  it('refuses an unknown field, naming it, and missing or mistyped fields', () => {
    expect(ndjsonRow(1, JSON.stringify({ ...body, elevation: 300 })).e).toEqual({
      code: 'invalid_request',
      message: 'elevation is not a recognized field',
    })
    const { latitude: _, ...noLatitude } = body
    expect(ndjsonRow(1, JSON.stringify(noLatitude)).e?.message).toBe('latitude is required')
    expect(ndjsonRow(1, JSON.stringify({ ...body, latitude: '44.6' })).e?.message).toBe(
      'latitude must be a number',
    )
    expect(ndjsonRow(1, JSON.stringify({ ...body, species_code: 7 })).e?.message).toBe(
      'species_code must be a string',
    )
  })
})
