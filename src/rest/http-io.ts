import type { IncomingMessage, ServerResponse } from 'node:http'
import { ApiError } from '../domain/errors.ts'
import { readBodyBytes } from '../http/body.ts'

/** Largest accepted request body: a 500-site batch is ~100 KB. */
export const MAX_BODY_BYTES = 1024 * 1024

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

/** The spec's error envelope: `{"error": {code, message, details?}}` and nothing else. */
export function errorBody(error: ApiError): { error: { code: string; message: string; details?: unknown } } {
  return {
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  }
}

export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, errorBody(error), { ...headers, ...error.headers })
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false
  const mediaType = header.split(';')[0]?.trim().toLowerCase()
  return (
    mediaType === 'application/json' ||
    (mediaType?.startsWith('application/') && mediaType.endsWith('+json')) === true
  )
}

/** Reads and parses a JSON request body: 415 without a JSON content type, 413 over the limit, 400 if malformed. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new ApiError(
      'unsupported_media_type',
      'Send the body as JSON with Content-Type: application/json',
      {
        content_type: req.headers['content-type'] ?? null,
      },
    )
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
  const text = (await readBodyBytes(req, limit, () => tooLarge(limit))).toString('utf8')
  if (text.trim() === '') throw new ApiError('invalid_json', 'The request body is empty; send a JSON object')
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON')
  }
}

/** The unread rest of the body stays on the socket, so the connection cannot be reused: close it. */
function tooLarge(limit: number): ApiError {
  return new ApiError(
    'payload_too_large',
    `The request body exceeds ${limit} bytes`,
    { limit_bytes: limit },
    {
      connection: 'close',
    },
  )
}
