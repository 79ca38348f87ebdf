import { randomUUID } from 'node:crypto'

const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The caller's request id when it is well-formed (echoed back), else a fresh UUID. */
export function resolveRequestId(incoming: string | null | undefined): string {
  return incoming && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : randomUUID()
}
