import type { ServerResponse } from 'node:http'
import { type ApiError, errorEnvelope } from '../domain/errors.ts'

/** A body already serialised (piece by piece, to keep large responses from piling up objects). */
export class SerializedJson {
  constructor(readonly text: string) {}
}

/**
 * A large body encoded piece by piece into buffers as it is written (JsonEncoder): no string of the
 * whole answer is built, flattened and copied again into a buffer, and no fresh memory of its size is
 * touched per request.
 */
export class EncodedJson {
  constructor(
    readonly chunks: readonly Buffer[],
    readonly byteLength: number,
  ) {}

  get text(): string {
    return Buffer.concat(this.chunks, this.byteLength).toString('utf8')
  }
}

/** The size of the buffers a JsonEncoder fills: a few dozen predictions each. */
const CHUNK_BYTES = 64 * 1024
/** The most UTF-8 bytes one UTF-16 code unit can take. */
const MAX_BYTES_PER_UNIT = 3

/** Writes JSON text, piece by piece, into buffers of CHUNK_BYTES. */
export class JsonEncoder {
  private readonly chunks: Buffer[] = []
  private chunk: Buffer | undefined
  private offset = 0
  private byteLength = 0

  write(text: string): void {
    const most = text.length * MAX_BYTES_PER_UNIT
    if (this.chunk === undefined || this.offset + most > this.chunk.length) {
      this.closeChunk()
      if (most > CHUNK_BYTES) {
        const whole = Buffer.from(text)
        this.chunks.push(whole)
        this.byteLength += whole.length
        return
      }
      this.chunk = Buffer.allocUnsafe(CHUNK_BYTES)
    }
    const written = this.chunk.write(text, this.offset)
    this.offset += written
    this.byteLength += written
  }

  finish(): EncodedJson {
    this.closeChunk()
    return new EncodedJson(this.chunks, this.byteLength)
  }

  private closeChunk(): void {
    // Only the bytes written are sent: the rest of an allocUnsafe buffer is never exposed.
    if (this.chunk !== undefined && this.offset > 0) this.chunks.push(this.chunk.subarray(0, this.offset))
    this.chunk = undefined
    this.offset = 0
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json; charset=utf-8',
): void {
  if (body instanceof EncodedJson) {
    res.writeHead(status, jsonHeaders(headers, contentType, body.byteLength))
    // Corked: the headers and every chunk leave in one writev.
    res.cork()
    for (const chunk of body.chunks) res.write(chunk)
    res.end()
    res.uncork()
    return
  }
  const text = body instanceof SerializedJson ? body.text : JSON.stringify(body)
  // A small body goes as a string: Node then sends the headers and the body in one write. A large one
  // is encoded once into a buffer, whose length is the Content-Length, and written without another pass.
  const payload = text.length <= SMALL_BODY_CHARS ? text : Buffer.from(text)
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length
  res.writeHead(status, jsonHeaders(headers, contentType, length))
  res.end(payload)
}

const SMALL_BODY_CHARS = 16 * 1024

function jsonHeaders(headers: Record<string, string>, contentType: string, length: number) {
  return {
    ...headers,
    'content-type': contentType,
    'x-content-type-options': 'nosniff',
    'content-length': length,
  }
}

/** The spec's error envelope with the error's status and its own headers (Retry-After…). */
export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, errorEnvelope(error), { ...headers, ...error.headers })
}
