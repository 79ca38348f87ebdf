import { randomUUID } from 'node:crypto'
import type { Plugin } from 'graphql-yoga'

const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
const requestIds = new WeakMap<Request, string>()

/** The caller's Request-Id (or X-Request-Id) when well-formed, else a fresh UUID. */
export function requestIdOf(request: Request): string {
  let id = requestIds.get(request)
  if (!id) {
    const incoming = request.headers.get('request-id') ?? request.headers.get('x-request-id')
    id = incoming && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : randomUUID()
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
