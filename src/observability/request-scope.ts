import { AsyncLocalStorage } from 'node:async_hooks'

/** What one request's log line and metrics say about it, filled in by the layers it passes through. */
export interface RequestRecord {
  requestId: string
  route: string
  keyId?: string
  tier?: string
  errorCode?: string
  operation?: string
}

const scope = new AsyncLocalStorage<RequestRecord>()

export function runInRequestScope<T>(record: RequestRecord, fn: () => T): T {
  return scope.run(record, fn)
}

/** Adds facts to the current request's record; a no-op outside a request (CLI, tests calling services). */
export function annotateRequest(facts: Partial<RequestRecord>): void {
  const record = scope.getStore()
  if (record) Object.assign(record, facts)
}
