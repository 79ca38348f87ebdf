import type { Plugin } from 'graphql-yoga'
import type { Authenticator } from '../../auth/authenticator.ts'
import { isApiError } from '../../domain/errors.ts'
import { assertBatchSize } from '../../domain/predictions.ts'
import { type QuotaGuard, rateLimitHeaders } from '../../quota/quota-guard.ts'
import type { GraphQLContext } from '../context.ts'
import { toGraphQLError } from '../errors.ts'
import { analyzeOperation } from '../operation-analysis.ts'

/**
 * One hook, in order: who is calling (X-API-Key), may they make another request today (tier quota),
 * and does the operation stay within their batch size (aliases and batch lists counted).
 * Public operations (health, model, introspection) skip all three and are never counted.
 */
export function useAccessControl(deps: {
  authenticator: Authenticator
  quota: QuotaGuard
}): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution, extendContext }) {
      const context = args.contextValue as GraphQLContext & { request: Request }
      const facts = analyzeOperation(args.document, args.operationName, args.variableValues ?? {})
      if (facts.isPublic) return
      try {
        const caller = await deps.authenticator.authenticate(context.request.headers.get('x-api-key'))
        const quota = await deps.quota.consume(caller)
        extendContext({ caller })
        assertBatchSize(facts.sitePredictions, caller.tier)
        return {
          onExecuteDone({ result }) {
            if (!('data' in result) && !('errors' in result)) return
            result.extensions = result.extensions ?? {}
            const http = (result.extensions.http ?? {}) as { headers?: Record<string, string> }
            http.headers = { ...http.headers, ...rateLimitHeaders(quota) }
            result.extensions.http = http
          },
        }
      } catch (error) {
        if (!isApiError(error)) throw error
        setResultAndStopExecution({ errors: [toGraphQLError(error)] })
      }
    },
  }
}
