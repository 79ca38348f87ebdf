import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { csvCell, toCsv } from './csv.ts'

describe('CSV of what the page shows', () => {
  it('is read back cell for cell by an RFC 4180 parser, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }).chain((header) =>
          fc.tuple(
            fc.constant(header),
            fc.array(fc.array(fc.string(), { minLength: header.length, maxLength: header.length }), {
              maxLength: 5,
            }),
          ),
        ),
        ([header, rows]) => {
          const parsed = parse(toCsv(header, rows), { relax_column_count: false, record_delimiter: '\r\n' })
          expect(parsed).toEqual([header, ...rows])
        },
      ),
    )
  })

  it('writes numbers and booleans as they are and empty cells for missing values', () => {
    expect(toCsv(['a', 'b', 'c', 'd'], [[0.5, true, null, undefined]])).toBe('a,b,c,d\r\n0.5,true,,\r\n')
    expect(csvCell('Douglas-fir, coastal')).toBe('"Douglas-fir, coastal"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
  })
})
