import { GraphQLError } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { type AccessControl, keyExpiryHeaders } from '../../auth/access-control.ts'
import { assertBatchSize } from '../../domain/batch-limits.ts'
import { toApiError } from '../../domain/errors.ts'
import { rateLimitHeaders } from '../../quota/quota-guard.ts'
import type { GraphQLContext } from '../context.ts'
import { toGraphQLError } from '../errors.ts'
import { analyzeOperation } from '../operation-analysis.ts'

/**
 * One hook, in order: who is calling (X-API-Key), may they make another request today (tier quota),
 * and does the operation stay within their batch size (aliases and batch lists counted).
 * Public operations (health, model, introspection) skip all three and are never counted.
 */
export function useAccessControl(access: AccessControl): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution, extendContext }) {
      const context = args.contextValue as GraphQLContext
      const facts = analyzeOperation(args.document, args.operationName, args.variableValues ?? {})
      context.request.operation = facts.operation?.name?.value ?? 'anonymous'
      context.request.graphqlField = facts.rootField
      if (facts.isPublic) return
      try {
        const admission = await access.admit(context.apiKey, context.request)
        extendContext({ caller: admission.caller })
        assertBatchSize(facts.sitePredictions, admission.caller.tier)
        return {
          onExecuteDone({ result }) {
            if (!('data' in result) && !('errors' in result)) return
            result.extensions = result.extensions ?? {}
            const http = (result.extensions.http ?? {}) as { headers?: Record<string, string> }
            http.headers = {
              ...http.headers,
              ...rateLimitHeaders(admission.quota),
              ...keyExpiryHeaders(admission.caller, admission.at),
            }
            result.extensions.http = http
          },
        }
      } catch (error) {
        // Error shaping (registered first) logs and masks an unexpected failure like any resolver's.
        const { error: apiError, expected } = toApiError(error)
        const reported = expected
          ? toGraphQLError(apiError)
          : new GraphQLError('access control failed', { originalError: error as Error })
        setResultAndStopExecution({ errors: [reported] })
      }
    },
  }
}
