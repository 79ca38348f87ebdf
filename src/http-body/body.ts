import type { IncomingMessage } from 'node:http'
import { type ApiError, apiError, ClientClosedError } from '../domain/errors.ts'
import { lingeringClose } from './lingering-close.ts'

/** Largest accepted request body, REST and GraphQL alike: a 500-site batch is ~100 KB. */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * 413 for a body over `limit`. The unread rest of it stays on the connection, which cannot be reused:
 * the answer closes it, and the close lingers until the client has sent the rest (lingering-close.ts).
 */
export function bodyTooLarge(req: IncomingMessage, limit: number): ApiError {
  lingeringClose(req)
  return apiError(
    'payload_too_large',
    { limit },
    { details: { limit_bytes: limit }, headers: { connection: 'close' } },
  )
}

/**
 * The whole request body; rejects with `bodyTooLarge` before reading when its declared Content-Length
 * is over `limit`, or as soon as it passes `limit` (a chunked body). Read with stream events, not an
 * async iterator: one per request cost a small answer several per cent of its CPU, and stopping one
 * early destroys the request, resetting the connection under the 413.
 */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > limit) return Promise.reject(bodyTooLarge(req, limit))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        stop()
        return reject(bodyTooLarge(req, limit))
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      stop()
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      stop()
      reject(new ClientClosedError(error))
    }
    // Closed before its end: the client went away mid-body.
    const onClose = () => onError(new Error('request closed before its body ended'))
    if (req.readableEnded) return onEnd()
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}
