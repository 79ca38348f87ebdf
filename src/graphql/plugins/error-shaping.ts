import { GraphQLError } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { toApiError } from '../../domain/errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { GraphQLContext } from '../schema/context.ts'
import { isRequestError, toGraphQLError } from '../schema/errors.ts'

/** Some root field answered: a partial success is HTTP 200 and each error still says its status. */
function hasAnyData(data: Record<string, unknown> | null | undefined): boolean {
  return !!data && Object.values(data).some((value) => value !== null)
}

function withoutHttpStatus(error: GraphQLError): GraphQLError {
  const http = error.extensions?.http as { status?: number; headers?: Record<string, string> } | undefined
  if (!http?.status) return error
  const { status: _status, ...rest } = http
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, http: rest },
  })
}

/**
 * Domain errors keep their code, status and details; GraphQL's own document/variable errors pass;
 * anything else is logged with the request id and masked as internal_error (no stack, no SQL).
 */
export function useErrorShaping(logger: Logger): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      const context = args.contextValue as GraphQLContext
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return
          const errors = result.errors.map((error: GraphQLError) => {
            const { error: apiError, expected } = toApiError(error)
            if (expected)
              return error.extensions?.code === apiError.code ? error : toGraphQLError(apiError, error)
            if (isRequestError(error)) return error
            logger.error(
              { requestId: context.request.requestId, err: error.originalError, path: error.path },
              'unexpected error',
            )
            return toGraphQLError(apiError, error)
          })
          const code = errors[0]?.extensions?.code
          if (typeof code === 'string') context.request.errorCode = code
          setResult({ ...result, errors: hasAnyData(result.data) ? errors.map(withoutHttpStatus) : errors })
        },
      }
    },
  }
}
