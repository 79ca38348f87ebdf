import type { ServerResponse } from 'node:http'
import { type ApiError, errorEnvelope } from '../domain/errors.ts'

/** A body already serialised (piece by piece, to keep large responses from piling up objects). */
export class SerializedJson {
  constructor(readonly text: string) {}
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json; charset=utf-8',
): void {
  // Encoded once: the length is the buffer's, and the socket writes it without another pass.
  const payload = Buffer.from(body instanceof SerializedJson ? body.text : JSON.stringify(body))
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': payload.length,
  })
  res.end(payload)
}

/** The spec's error envelope with the error's status and its own headers (Retry-After…). */
export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, errorEnvelope(error), { ...headers, ...error.headers })
}
