import type { Plugin } from 'graphql-yoga'
import type { AccessControl } from '../../auth/access-control.ts'
import { asApiError } from '../../db/availability.ts'
import { assertBatchSize } from '../../domain/predictions.ts'
import { annotateRequest } from '../../observability/request-scope.ts'
import { rateLimitHeaders } from '../../quota/quota-guard.ts'
import type { GraphQLContext } from '../context.ts'
import { toGraphQLError } from '../errors.ts'
import { analyzeOperation } from '../operation-analysis.ts'

/**
 * One hook, in order: who is calling (X-API-Key), may they make another request today (tier quota),
 * and does the operation stay within their batch size (aliases and batch lists counted).
 * Public operations (health, model, introspection) skip all three and are never counted.
 * The REST adapter admits its request before reading the body and hands the admission in, so a
 * /v1 call is still counted exactly once.
 */
export function useAccessControl(access: AccessControl): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution, extendContext }) {
      const context = args.contextValue as GraphQLContext & { request: Request; req?: object }
      const facts = analyzeOperation(args.document, args.operationName, args.variableValues ?? {})
      annotateRequest(context.req, {
        operation: facts.operation?.name?.value ?? 'anonymous',
        graphqlField: facts.rootField,
      })
      if (facts.isPublic) return
      try {
        const admission =
          context.admission ?? (await access.admit(context.request.headers.get('x-api-key'), context.req))
        extendContext({ caller: admission.caller, admission })
        assertBatchSize(facts.sitePredictions, admission.caller.tier)
        return {
          onExecuteDone({ result }) {
            if (!('data' in result) && !('errors' in result)) return
            result.extensions = result.extensions ?? {}
            const http = (result.extensions.http ?? {}) as { headers?: Record<string, string> }
            http.headers = { ...http.headers, ...rateLimitHeaders(admission.quota) }
            result.extensions.http = http
          },
        }
      } catch (error) {
        const apiError = asApiError(error)
        if (!apiError) throw error
        annotateRequest(context.req, { errorCode: apiError.code })
        setResultAndStopExecution({ errors: [toGraphQLError(apiError)] })
      }
    },
  }
}
