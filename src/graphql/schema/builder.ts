import SchemaBuilder from '@pothos/core'
import ZodPlugin from '@pothos/plugin-zod'
import { JSONResolver } from 'graphql-scalars'
import { inputError } from '../../domain/input-rules.ts'
import type { GraphQLContext } from './context.ts'

export const builder = new SchemaBuilder<{
  Context: GraphQLContext
  Scalars: {
    JSON: { Input: unknown; Output: unknown }
    DateTime: { Input: Date; Output: Date }
  }
  DefaultFieldNullability: false
}>({
  plugins: [ZodPlugin],
  defaultFieldNullability: false,
  zod: {
    // A failed input rule reaches the client as invalid_request naming the argument path, as in REST.
    validationError: (zodError) => inputError(zodError, 'arguments'),
  },
})

builder.addScalarType('JSON', JSONResolver, {
  description: 'Any JSON value (used for GeoJSON and error details)',
})
builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => new Date(String(value)),
})

builder.queryType({ description: 'Every read the API offers: predictions, the catalogue and the service' })
