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
  const text = body instanceof SerializedJson ? body.text : JSON.stringify(body)
  // A small body goes as a string: Node then sends the headers and the body in one write. A large one
  // is encoded once into a buffer, whose length is the Content-Length, and written without another pass.
  const payload = text.length <= SMALL_BODY_CHARS ? text : Buffer.from(text)
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'x-content-type-options': 'nosniff',
    'content-length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
  })
  res.end(payload)
}

const SMALL_BODY_CHARS = 16 * 1024

/** The spec's error envelope with the error's status and its own headers (Retry-After…). */
export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, errorEnvelope(error), { ...headers, ...error.headers })
}
