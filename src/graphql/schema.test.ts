import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { printSchemaSdl } from './schema.ts'

describe('schema/schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema:print` after changing types)', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8')
    expect(committed).toBe(printSchemaSdl())
  })
})
