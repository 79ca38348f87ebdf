import SchemaBuilder from '@pothos/core'
import ZodPlugin from '@pothos/plugin-zod'
import { JSONResolver } from 'graphql-scalars'
import { ApiError } from '../domain/errors.ts'
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
    // A failed input check reaches the client as invalid_request naming the argument path.
    validationError: (zodError) => {
      const issue = zodError.issues[0]
      const field = issue?.path.map(String).join('.') || 'input'
      return new ApiError('invalid_request', `${field}: ${issue?.message ?? 'invalid value'}`, { field })
    },
  },
})

builder.addScalarType('JSON', JSONResolver)
builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => new Date(String(value)),
})

builder.queryType({})
