import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HORIZONS, type Horizon } from '../types.ts'
import { type CsvLayout, csvLayout, csvRow, ndjsonRow } from './job-rows.ts'

const HEADER = ['latitude', 'longitude', 'species_code', 'planting_method']
const layout = csvLayout(HEADER)

describe('rows, for any input', () => {
  // -0 prints as "0": keep it out so the round trip compares like with like.
  const coordinate = (limit: number) =>
    fc.double({ min: -limit, max: limit, noNaN: true }).map((value) => (Object.is(value, -0) ? 0 : value))
  const code = fc
    .string({ minLength: 1, maxLength: 100 })
    .filter((text) => text.trim() === text && text !== '')
  const horizonSubset = fc.subarray([...HORIZONS] as Horizon[])
  const valid = fc.record({
    latitude: coordinate(90),
    longitude: coordinate(180),
    species: code,
    method: code,
    horizons: horizonSubset,
  })
  /** The request a valid input reads as. */
  const requestOf = (input: {
    latitude: number
    longitude: number
    species: string
    method: string
    horizons: Horizon[]
  }) => ({
    latitude: input.latitude,
    longitude: input.longitude,
    speciesCode: input.species,
    plantingMethod: input.method,
    horizons: input.horizons.length > 0 ? input.horizons : null,
  })

  it('round-trips any valid CSV row, in any column order, to its request', () => {
    fc.assert(
      fc.property(
        valid,
        fc.shuffledSubarray([...HEADER, 'horizons'], { minLength: 5, maxLength: 5 }),
        (input, order) => {
          const text: Record<string, string> = {
            latitude: String(input.latitude),
            longitude: String(input.longitude),
            species_code: input.species,
            planting_method: input.method,
            horizons: input.horizons.join('|'),
          }
          const shuffled: CsvLayout = csvLayout(order)
          const result = csvRow(
            shuffled,
            1,
            order.map((name) => text[name] ?? ''),
          )
          expect(result.e).toBeUndefined()
          expect(result.q).toEqual(requestOf(input))
        },
      ),
    )
  })

  it('round-trips any valid NDJSON line to its request', () => {
    fc.assert(
      fc.property(valid, fc.option(fc.oneof(fc.string({ maxLength: 200 }), fc.integer())), (input, id) => {
        const line = JSON.stringify({
          ...(id === null ? {} : { id }),
          latitude: input.latitude,
          longitude: input.longitude,
          species_code: input.species,
          planting_method: input.method,
          ...(input.horizons.length > 0 ? { horizons: input.horizons } : {}),
        })
        const result = ndjsonRow(1, line)
        expect(result.e).toBeUndefined()
        expect(result.q).toEqual(requestOf(input))
      }),
    )
  })

  it('asks any row for the climate it names, CSV cells and NDJSON fields alike, and for none when it names none', () => {
    const name = fc.option(
      fc.string({ minLength: 1, maxLength: 40 }).filter((text) => text.trim() === text && text !== ''),
    )
    const climateHeader = [...HEADER, 'period', 'scenario']
    fc.assert(
      fc.property(name, name, (period, scenario) => {
        const body = { latitude: 44.6, longitude: -123.6, species_code: 'PSME', planting_method: 'manual' }
        const fromCsv = csvRow(csvLayout(climateHeader), 1, [
          '44.6',
          '-123.6',
          'PSME',
          'manual',
          period ?? '',
          scenario ?? '',
        ])
        const fromNdjson = ndjsonRow(1, JSON.stringify({ ...body, period, scenario }))
        const expected = period === null && scenario === null ? undefined : { period, scenario }
        for (const result of [fromCsv, fromNdjson]) {
          expect(result.e).toBeUndefined()
          expect(result.q?.climate).toEqual(expected)
        }
        expect(fromNdjson.c.slice(6)).toEqual([period, scenario])
      }),
    )
  })

  it('never throws on any line: it answers a request or the row’s error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'binary' })), (line) => {
        const result = ndjsonRow(1, line)
        expect(result.r).toBe(1)
        expect((result.q === undefined) !== (result.e === undefined)).toBe(true)
      }),
    )
  })

  it('never throws on any CSV cells', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 6 }), (cells) => {
        const result = csvRow(layout, 1, cells)
        expect((result.q === undefined) !== (result.e === undefined)).toBe(true)
      }),
    )
  })
})
