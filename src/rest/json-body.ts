import type { IncomingMessage } from 'node:http'
import { apiError } from '../domain/errors.ts'
import { MAX_BODY_BYTES, readBodyBytes } from '../http-body/body.ts'

/** The limit of a JSON body: the one every door shares. */
export { MAX_BODY_BYTES }

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false
  // What nearly every client sends: no list to split, no strings to make.
  if (header === 'application/json') return true
  const mediaType = header.split(';')[0]?.trim().toLowerCase()
  return (
    mediaType === 'application/json' ||
    (mediaType?.startsWith('application/') && mediaType.endsWith('+json')) === true
  )
}

/** Reads and parses a JSON request body: 415 without a JSON content type, 413 over the limit, 400 if malformed. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw apiError('unsupported_media_type', undefined, {
      details: { content_type: req.headers['content-type'] ?? null },
    })
  }
  const text = (await readBodyBytes(req, limit)).toString('utf8')
  try {
    return JSON.parse(text)
  } catch {
    // Told apart only when it failed: an empty (or blank) body is not malformed JSON.
    throw apiError('invalid_json', { empty: text.trim() === '' })
  }
}

/** Like readJsonBody, but a request with no body at all reads as `{}` (for endpoints whose fields are all optional). */
export function readOptionalJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const noBody =
    req.headers['transfer-encoding'] === undefined &&
    (req.headers['content-length'] === undefined || req.headers['content-length'] === '0')
  return noBody ? Promise.resolve({}) : readJsonBody(req, limit)
}
