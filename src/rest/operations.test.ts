import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { generate } from '../../codegen.ts'
import { REST_DOCUMENTS } from './operations.ts'

describe('REST operations', () => {
  it('typed documents are current with operations.graphql and the schema (run `npm run codegen`)', async () => {
    for (const [file, code] of await generate()) {
      expect(readFileSync(file, 'utf8'), file).toBe(code)
    }
  })

  it('every document validates against the live schema', () => {
    expect(Object.keys(REST_DOCUMENTS).sort()).toEqual(['coverage', 'methods', 'species'])
  })
})
