import { describe, expect, it } from 'vitest'
import { resultOutcomes } from './result-outcomes.ts'

describe('a chunk’s NDJSON results read back', () => {
  it('reads survival, the error code and a stand’s probability and confidence, line by line', () => {
    const chunk = [
      '{"row":1,"id":"a","survival_1y":0.8123,"survival_3y":null,"survival_5y":0.61,"error_code":null}',
      '{"row":2,"id":"b","survival_1y":null,"survival_3y":null,"survival_5y":null,"error_code":"no_nearby_data"}',
      '{"row":3,"survival_1y":null,"survival_3y":null,"survival_5y":null,"confidence":0.8,"meets_probability":0.91,"error_code":null}',
      '',
    ].join('\n')
    expect([...resultOutcomes(chunk)]).toEqual([
      { survival: [0.8123, null, 0.61], errorCode: null, stand: null },
      { survival: [null, null, null], errorCode: 'no_nearby_data', stand: null },
      {
        survival: [null, null, null],
        errorCode: null,
        stand: { meetsProbability: 0.91, confidence: 0.8 },
      },
    ])
  })

  it('reads a chunk without a final newline, and nothing from an empty one', () => {
    expect([...resultOutcomes('{"survival_1y":0.5}')]).toHaveLength(1)
    expect([...resultOutcomes('')]).toEqual([])
  })
})
