import { writeFileSync } from 'node:fs'
import { printSchemaSdl } from '../graphql/schema/schema.ts'
import { projectFile } from '../project-files.ts'

/** Writes schema/schema.graphql from the Pothos builder (committed; a test fails when it is stale). */
const target = projectFile('schema/schema.graphql')
writeFileSync(target, printSchemaSdl())
process.stderr.write(`wrote ${target.pathname}\n`)
