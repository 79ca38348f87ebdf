import { writeFileSync } from 'node:fs'
import { projectFile } from '../project-files.ts'
import { buildCoverage, serializeCoverage } from './coverage-shapes.ts'

const target = projectFile('data/coverage-pnw.geojson')
const collection = buildCoverage()
writeFileSync(target, serializeCoverage(collection))
console.error(`wrote ${collection.features.length} features to ${target.pathname}`)
