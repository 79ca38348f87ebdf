import { GraphQLError } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { type AccessControl, type Admission, keyExpiryHeaders } from '../../access/auth/access-control.ts'
import { type QuotaStatus, rateLimitHeaders } from '../../access/quota/quota-guard.ts'
import { assertBatchSize } from '../../domain/batch-limits.ts'
import { type ApiError, toApiError } from '../../domain/errors.ts'
import type { GraphQLContext } from '../schema/context.ts'
import { toGraphQLError } from '../schema/errors.ts'
import { analyzeOperation } from './operation-analysis.ts'

/**
 * `extensions.rateLimit` of every keyed response, in GitHub's shape: the day's limit and what is left
 * of it (both null for an unlimited tier), and when the count starts again (ISO 8601).
 */
export interface RateLimitExtension {
  limit: number | null
  remaining: number | null
  resetAt: string
}

export function rateLimitExtension(quota: QuotaStatus): RateLimitExtension {
  return { limit: quota.limit, remaining: quota.remaining, resetAt: quota.resetAt.toISOString() }
}

/**
 * A refusal for the day's quota carries no status object, only its headers (X-RateLimit-Limit,
 * -Remaining and -Reset in epoch seconds): read back from them. Undefined for any other error.
 */
export function rateLimitOfRefusal(error: ApiError): RateLimitExtension | undefined {
  if (error.code !== 'rate_limit_exceeded' || !error.headers) return undefined
  const limit = Number(error.headers['x-ratelimit-limit'])
  const remaining = Number(error.headers['x-ratelimit-remaining'] ?? 0)
  const reset = Number(error.headers['x-ratelimit-reset'])
  if (!Number.isFinite(limit) || !Number.isFinite(remaining) || !Number.isFinite(reset)) return undefined
  return { limit, remaining, resetAt: new Date(reset * 1000).toISOString() }
}

type ResponseExtensions = Record<string, unknown> & {
  http?: { status?: number; headers?: Record<string, string> }
}

/**
 * One hook, in order: who is calling (X-API-Key), may they make another request today (tier quota),
 * and does the operation stay within their batch size (aliases and batch lists counted).
 * Public operations (health, model, introspection) skip all three, are never counted and carry no
 * rate limit. Every admitted response (data or error) carries the rate-limit headers and
 * `extensions.rateLimit`; so does a refusal for the day's quota.
 */
export function useAccessControl(access: AccessControl): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution, extendContext }) {
      const context = args.contextValue as GraphQLContext
      const facts = analyzeOperation(args.document, args.operationName, args.variableValues ?? {})
      context.request.operation = facts.operation?.name?.value ?? 'anonymous'
      context.request.graphqlField = facts.rootField
      if (facts.isPublic) return
      let admission: Admission | undefined
      let rateLimit: RateLimitExtension | undefined
      try {
        admission = await access.admit(context.apiKey, context.request)
        rateLimit = rateLimitExtension(admission.quota)
        extendContext({ caller: admission.caller, quota: admission.quota })
        assertBatchSize(facts.sitePredictions, admission.caller.tier)
      } catch (error) {
        // Error shaping (registered first) logs and masks an unexpected failure like any resolver's.
        const { error: apiError, expected } = toApiError(error)
        const reported = expected
          ? toGraphQLError(apiError)
          : new GraphQLError('access control failed', { originalError: error as Error })
        rateLimit ??= expected ? rateLimitOfRefusal(apiError) : undefined
        setResultAndStopExecution({ errors: [reported] })
      }
      if (!rateLimit) return
      const headers = admission
        ? { ...rateLimitHeaders(admission.quota), ...keyExpiryHeaders(admission.caller, admission.at) }
        : {}
      const extension = rateLimit
      return {
        // Also runs on the result access control stopped with (envelop keeps hooks of a stopping plugin).
        onExecuteDone({ result }) {
          if (!('data' in result) && !('errors' in result)) return
          const extensions: ResponseExtensions = result.extensions ?? {}
          extensions.http = { ...extensions.http, headers: { ...extensions.http?.headers, ...headers } }
          extensions.rateLimit = extension
          result.extensions = extensions
        },
      }
    },
  }
}
