import type { Plugin } from 'graphql-yoga'
import { resolveRequestId } from '../../http/request-id.ts'

const requestIds = new WeakMap<Request, string>()

/** The request id of a GraphQL request: its Request-Id (or X-Request-Id) header, or a fresh one. */
export function requestIdOf(request: Request): string {
  let id = requestIds.get(request)
  if (!id) {
    id = resolveRequestId(request.headers.get('request-id') ?? request.headers.get('x-request-id'))
    requestIds.set(request, id)
  }
  return id
}

/** Echoes the request id on every response, errors included. */
export function useRequestId(): Plugin {
  return {
    onResponse({ request, response }) {
      response.headers.set('request-id', requestIdOf(request))
    },
  }
}
