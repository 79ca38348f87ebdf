import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { expect } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'
import type { StreamedUpload } from '../../src/domain/streamed-upload.ts'
import { streamedUpload } from '../../src/rest/streamed-upload.ts'

// The streamedUpload tests' requests: bodies that arrive in given pieces, and what reading them yields or throws.

/**
 * A request whose body arrives in exactly these pieces. Like an IncomingMessage on Node 20, it is
 * destroyed once read to the end; `stillSending` leaves it open after the pieces (more to come).
 */
export function request(
  pieces: readonly (Buffer | string)[],
  headers: IncomingHttpHeaders,
  stillSending = false,
): IncomingMessage {
  const buffers = pieces.map((piece) => Buffer.from(piece))
  const body = stillSending ? new Readable({ read() {} }) : Readable.from(buffers)
  if (stillSending) for (const buffer of buffers) body.push(buffer)
  return Object.assign(body, { headers }) as unknown as IncomingMessage
}

/** Splits `bytes` at the given offsets (any order, repeats and out-of-range offsets ignored). */
export function splitAt(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const cuts = [...new Set(offsets.filter((at) => at > 0 && at < bytes.length))].sort((a, b) => a - b)
  return [0, ...cuts].map((from, index) => bytes.subarray(from, cuts[index] ?? bytes.length))
}

export async function records(upload: StreamedUpload): Promise<unknown[]> {
  const out: unknown[] = []
  for await (const record of upload.records) out.push(record)
  return out
}

/** The ApiError reading a request's records fails with (or streamedUpload itself throws). */
export async function uploadError(
  pieces: readonly (Buffer | string)[],
  headers: IncomingHttpHeaders,
  stillSending = false,
): Promise<ApiError> {
  let thrown: unknown
  try {
    await records(streamedUpload(request(pieces, headers, stillSending)))
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(ApiError)
  return thrown as ApiError
}
