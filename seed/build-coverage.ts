import { writeFileSync } from 'node:fs'
import { buildCoverage, serializeCoverage } from './coverage-shapes.ts'

const target = new URL('./data/coverage-pnw.geojson', import.meta.url)
const collection = buildCoverage()
writeFileSync(target, serializeCoverage(collection))
console.error(`wrote ${collection.features.length} features to ${target.pathname}`)
