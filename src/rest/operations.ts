import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { validate } from 'graphql'
import { schema } from '../graphql/schema.ts'
import { RestCoverageDocument, RestMethodsDocument, RestSpeciesDocument } from './generated/operations.ts'

/** The typed documents behind /v1 (src/rest/operations.graphql), checked against the live schema once. */
export const REST_DOCUMENTS = {
  species: RestSpeciesDocument,
  methods: RestMethodsDocument,
  coverage: RestCoverageDocument,
} as const

for (const [name, document] of Object.entries(REST_DOCUMENTS) as [string, TypedDocumentNode][]) {
  const errors = validate(schema, document)
  if (errors.length)
    throw new Error(`REST operation ${name} does not match the schema: ${errors[0]?.message}`)
}
