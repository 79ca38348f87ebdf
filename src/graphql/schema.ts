import { lexicographicSortSchema, printSchema } from 'graphql'
import { builder } from './builder.ts'
import './types/catalogue.ts'
import './types/climate.ts'
import './types/prediction.ts'
import './types/comparison.ts'
import './types/batch.ts'
import './types/ranking.ts'
import './types/survival-map.ts'
import './types/stocking-plan.ts'
import './types/service.ts'
import './types/viewer.ts'

export const schema = builder.toSchema()

/** The SDL committed as schema/schema.graphql. */
export function printSchemaSdl(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`
}
