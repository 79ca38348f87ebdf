import type { IncomingMessage } from 'node:http'
import { type ApiError, apiError } from '../domain/errors.ts'
import { readBodyBytes } from '../http-io/body.ts'

/** Largest accepted request body: a 500-site batch is ~100 KB. */
export const MAX_BODY_BYTES = 1024 * 1024

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false
  const mediaType = header.split(';')[0]?.trim().toLowerCase()
  return (
    mediaType === 'application/json' ||
    (mediaType?.startsWith('application/') && mediaType.endsWith('+json')) === true
  )
}

/** The unread rest of the body stays on the socket, so the connection cannot be reused: close it. */
function tooLarge(limit: number): ApiError {
  return apiError(
    'payload_too_large',
    { limit },
    { details: { limit_bytes: limit }, headers: { connection: 'close' } },
  )
}

/** Reads and parses a JSON request body: 415 without a JSON content type, 413 over the limit, 400 if malformed. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw apiError('unsupported_media_type', undefined, {
      details: { content_type: req.headers['content-type'] ?? null },
    })
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
  const text = (await readBodyBytes(req, limit, () => tooLarge(limit))).toString('utf8')
  if (text.trim() === '') throw apiError('invalid_json', { empty: true })
  try {
    return JSON.parse(text)
  } catch {
    throw apiError('invalid_json', { empty: false })
  }
}

/** Like readJsonBody, but a request with no body at all reads as `{}` (for endpoints whose fields are all optional). */
export function readOptionalJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const noBody =
    req.headers['transfer-encoding'] === undefined &&
    (req.headers['content-length'] === undefined || req.headers['content-length'] === '0')
  return noBody ? Promise.resolve({}) : readJsonBody(req, limit)
}
