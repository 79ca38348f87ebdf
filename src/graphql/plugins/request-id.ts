import type { Plugin } from 'graphql-yoga'
import type { RequestContext } from '../../observability/request-context.ts'

/** Echoes the request id on every response yoga writes itself, errors included. */
export function useRequestId(): Plugin {
  return {
    onResponse({ response, serverContext }) {
      const request = (serverContext as { requestContext?: RequestContext } | undefined)?.requestContext
      if (request) response.headers.set('request-id', request.requestId)
    },
  }
}
