import { describe, expect, it } from 'vitest'
import { messagesFor } from './report-messages.ts'
import {
  cleanName,
  compactJson,
  printedRequest,
  REQUEST_CHARACTERS_MAX,
  requestJson,
} from './report-parts.ts'

const text = messagesFor('en')

describe('the request a report prints and attaches', () => {
  const body = {
    stand: {
      type: 'Feature',
      properties: { name: 'Unit "7", north' },
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-123.6, 44.6],
            [-123.5, 44.6],
            [-123.5, 44.7],
            [-123.6, 44.6],
          ],
        ],
      },
    },
    species_mix: [{ species_code: 'PSME', share: 1 }],
    trees_per_acre: 300,
    confidence: null,
  }

  it('reads back as the same request, attached and printed', () => {
    expect(JSON.parse(requestJson(body))).toEqual(body)
    expect(JSON.parse(compactJson(body))).toEqual(body)
    expect(JSON.parse(printedRequest(text, body))).toEqual(body)
    expect(printedRequest(text, body).split('\n')).toHaveLength(6)
  })

  it('prints at most its limit, and says where the rest is', () => {
    const long = {
      stand: {
        type: 'Polygon',
        coordinates: [Array.from({ length: 500 }, (_, i) => [-123 - i / 1000, 44.5])],
      },
    }
    const printed = printedRequest(text, long)
    const [kept, note] = [
      printed.slice(0, printed.lastIndexOf('\n')),
      printed.slice(printed.lastIndexOf('\n') + 1),
    ]
    expect(kept).toHaveLength(REQUEST_CHARACTERS_MAX)
    expect(note).toBe(
      `… ${compactJson(long).length + 4 - REQUEST_CHARACTERS_MAX} more characters: see the attached request.json`,
    )
  })
})

describe('a place’s name in a title', () => {
  it('is one line, without control characters, cut with an ellipsis', () => {
    expect(cleanName('  Unit\n7\t north\u0000 ')).toBe('Unit 7 north')
    expect(cleanName('x'.repeat(100))).toBe(`${'x'.repeat(79)}…`)
  })
})
