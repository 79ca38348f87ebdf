import { writeFileSync } from 'node:fs'
import { printSchemaSdl } from '../graphql/schema.ts'

/** Writes schema/schema.graphql from the Pothos builder (committed; a test fails when it is stale). */
const target = new URL('../../schema/schema.graphql', import.meta.url)
writeFileSync(target, printSchemaSdl())
process.stderr.write(`wrote ${target.pathname}\n`)
