/** What one request's log line and metrics say about it, filled in by the layers it passes through. */
export interface RequestRecord {
  requestId: string
  route: string
  keyId?: string
  tier?: string
  errorCode?: string
  /** GraphQL: the operation's name as the client wrote it (logs only). */
  operation?: string
  /** GraphQL: the root field asked for, or 'multiple' (bounded: a metrics label). */
  graphqlField?: string
}

// Keyed by the Node request object: cheaper on the hot path than AsyncLocalStorage's promise hooks.
const records = new WeakMap<object, RequestRecord>()

export function attachRequestRecord(req: object, record: RequestRecord): void {
  records.set(req, record)
}

/** Adds facts to a request's record; a no-op when there is none (CLI, services called directly). */
export function annotateRequest(req: object | undefined, facts: Partial<RequestRecord>): void {
  const record = req && records.get(req)
  if (record) Object.assign(record, facts)
}
