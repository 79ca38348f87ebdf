import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { generate, OUTPUT } from '../generate.ts'

describe('clients/typescript/src/schema.ts', () => {
  it('is current with schema/openapi.yaml (run `npm run client:generate`)', async () => {
    expect(readFileSync(OUTPUT, 'utf8')).toBe(await generate())
  })
})
