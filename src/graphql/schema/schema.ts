import { lexicographicSortSchema, printSchema } from 'graphql'
import { builder } from './builder.ts'
import './catalogue.ts'
import './climate.ts'
import './treatment-catalogue.ts'
import './prediction.ts'
import './comparison.ts'
import './batch.ts'
import './ranking.ts'
import './survival-map.ts'
import './stocking-plan.ts'
import './planting-options.ts'
import './surveys.ts'
import './survey-uploads.ts'
import './models.ts'
import './calibrations.ts'
import './jobs.ts'
import './service.ts'
import './viewer.ts'

export const schema = builder.toSchema()

/** The SDL committed as schema/schema.graphql. */
export function printSchemaSdl(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`
}
