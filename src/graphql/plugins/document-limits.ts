import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor'
import type { GraphQLError, ValidationContext } from 'graphql'
import { apiError } from '../../domain/errors.ts'
import { toGraphQLError } from '../schema/errors.ts'

/** Armor reports a rejection as a syntax error with status 200; report query_too_complex (400) instead. */
function rejectAsTooComplex(context: ValidationContext | null, error: GraphQLError): void {
  const message = error.message.replace(/^Syntax Error: /, '')
  const tooComplex = toGraphQLError(apiError('query_too_complex', { reason: message }))
  // The token limit is checked by the parser, where there is no validation context to report to.
  if (!context) throw tooComplex
  context.reportError(tooComplex)
}

const reject = { propagateOnRejection: false, onReject: [rejectAsTooComplex] }

/**
 * Limits on the document itself, before any key is checked: depth, aliases (including __typename),
 * directives, tokens and a field cost. The site-prediction budget per tier is the access-control plugin's.
 * A 500-alias prediction query (the hypha batch size) stays inside every limit.
 */
export function useDocumentLimits() {
  return EnvelopArmorPlugin({
    maxDepth: { n: 10, ignoreIntrospection: true, ...reject },
    maxAliases: { n: 510, allowList: [], ...reject },
    maxTokens: { n: 30_000, ...reject },
    maxDirectives: { n: 50, ...reject },
    costLimit: { maxCost: 250_000, ignoreIntrospection: true, ...reject },
    blockFieldSuggestion: { enabled: false },
  })
}
