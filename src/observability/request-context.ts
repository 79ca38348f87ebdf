/**
 * One request, from the front door to its log line: created by src/http, filled in by the layers it
 * passes through (route, caller, outcome), read once when the response is finished.
 */
export interface RequestContext {
  /** The caller's well-formed Request-Id, or a fresh UUID; echoed on the response. */
  readonly requestId: string
  /** process.hrtime.bigint() when the request arrived. */
  readonly startedAt: bigint
  /**
   * Who called, as the front door found it (TRUST_PROXY): the TCP peer, or the client our trusted
   * proxies name. Undefined only when the connection was gone before the request was read.
   */
  readonly clientAddress: string | undefined
  /** The matched route (path), or 'unmatched'. */
  route: string
  keyId?: string
  tier?: string
  /** The error code the request ended with, if any. */
  errorCode?: string
  /** GraphQL: the operation's name as the client wrote it (logs only). */
  operation?: string
  /** GraphQL: the root field asked for, or 'multiple' (bounded: a metrics label). */
  graphqlField?: string
}

export function createRequestContext(
  requestId: string,
  route: string,
  clientAddress?: string,
): RequestContext {
  return { requestId, startedAt: process.hrtime.bigint(), clientAddress, route }
}
