import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { byteRange, resultFormat } from './job-routes.ts'

describe('resultFormat', () => {
  it('answers the job’s own format when Accept names neither', () => {
    for (const accept of [undefined, '', '*/*', 'application/json', 'text/*']) {
      expect(resultFormat(accept, 'csv'), String(accept)).toBe('csv')
      expect(resultFormat(accept, 'ndjson'), String(accept)).toBe('ndjson')
    }
  })

  it('answers the one format Accept names, in any case and with parameters', () => {
    expect(resultFormat('text/csv', 'ndjson')).toBe('csv')
    expect(resultFormat('Application/X-NDJSON', 'csv')).toBe('ndjson')
    expect(resultFormat('application/json, text/csv;q=0.5', 'ndjson')).toBe('csv')
  })

  it('answers the first named when Accept names both', () => {
    expect(resultFormat('text/csv, application/x-ndjson', 'ndjson')).toBe('csv')
    expect(resultFormat('application/x-ndjson,text/csv', 'csv')).toBe('ndjson')
  })

  it('skips a format refused with q=0', () => {
    expect(resultFormat('text/csv;q=0, application/x-ndjson', 'csv')).toBe('ndjson')
    expect(resultFormat('text/csv; q=0.0', 'csv')).toBe('csv')
    expect(resultFormat('application/x-ndjson;q=0', 'ndjson')).toBe('ndjson')
    expect(resultFormat('application/x-ndjson;q=0.01', 'csv')).toBe('ndjson')
  })
})

describe('byteRange', () => {
  it('reads one bytes=start-end range, clipping the end to the length', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 })
    expect(byteRange('bytes=500-', 1000)).toEqual({ start: 500, end: 999 })
    expect(byteRange('bytes=900-5000', 1000)).toEqual({ start: 900, end: 999 })
    expect(byteRange('bytes=999-999', 1000)).toEqual({ start: 999, end: 999 })
    expect(byteRange(' bytes=1-2 ', 1000)).toEqual({ start: 1, end: 2 })
  })

  it('reads a suffix range as the last bytes, the whole body when it is longer', () => {
    expect(byteRange('bytes=-100', 1000)).toEqual({ start: 900, end: 999 })
    expect(byteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 })
    expect(byteRange('bytes=-0', 1000)).toBe('unsatisfiable')
  })

  it('calls a range starting at or past the end unsatisfiable', () => {
    expect(byteRange('bytes=1000-', 1000)).toBe('unsatisfiable')
    expect(byteRange('bytes=1000-2000', 1000)).toBe('unsatisfiable')
    expect(byteRange('bytes=99999999999999999999-', 1000)).toBe('unsatisfiable')
  })

  it('ignores no range, a malformed one, a backwards one and several ranges (the whole body is sent)', () => {
    for (const header of [
      undefined,
      '',
      'bytes=',
      'bytes=-',
      'bytes=5-2',
      'bytes=0-1,3-4',
      'items=0-1',
      'bytes=a-b',
      'bytes 0-1',
    ]) {
      expect(byteRange(header, 1000), String(header)).toBeUndefined()
    }
  })

  it('keeps any satisfiable range within [0, length), never empty', () => {
    const header = fc.oneof(
      fc.tuple(fc.nat(), fc.option(fc.nat())).map(([start, end]) => `bytes=${start}-${end ?? ''}`),
      fc.nat().map((suffix) => `bytes=-${suffix}`),
      fc.string(),
    )
    fc.assert(
      fc.property(header, fc.integer({ min: 1, max: 2 ** 40 }), (text, length) => {
        const range = byteRange(text, length)
        if (range === undefined || range === 'unsatisfiable') return
        expect(Number.isInteger(range.start) && Number.isInteger(range.end)).toBe(true)
        expect(range.start).toBeGreaterThanOrEqual(0)
        expect(range.start).toBeLessThanOrEqual(range.end)
        expect(range.end).toBeLessThan(length)
      }),
    )
  })

  it('answers exactly the bytes asked for when they lie within the body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.nat(), fc.nat(), (length, a, b) => {
        const start = a % length
        const end = start + (b % (length - start))
        expect(byteRange(`bytes=${start}-${end}`, length)).toEqual({ start, end })
      }),
    )
  })
})
