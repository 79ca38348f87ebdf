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
    const only = this.chunks.length === 1 ? this.chunks[0] : undefined
    return (only ?? Buffer.concat(this.chunks, this.byteLength)).toString('utf8')
  }
}

/** The size of the buffers a JsonEncoder fills: a few dozen predictions each. */
const CHUNK_BYTES = 64 * 1024
/** The most UTF-8 bytes one UTF-16 code unit can take. */
const MAX_BYTES_PER_UNIT = 3
/** The longest number JSON.stringify writes (`-1.2345678901234567e-308`), with room to spare. */
const MAX_NUMBER_CHARS = 32
const COMMA = 0x2c
const CLOSING_BRACKET = 0x5d
const DIGIT_ZERO = 0x30
/**
 * The bytes of the numbers list, shared by every encoder: a list is read to its end before the next is
 * given (each answer is written synchronously), so one buffer serves, grown when a list outgrows it.
 */
let numbersScratch = Buffer.allocUnsafeSlow(4096)
let numbersOwner: JsonEncoder | undefined

/**
 * Writes JSON, piece by piece, into buffers of `chunkBytes` (or of a piece's size, if larger): texts as
 * UTF-8, pieces encoded once as bytes, and numbers copied out of one JSON.stringify'd list, so that a
 * layout of many small pieces builds no string per piece and no string of the whole.
 */
export class JsonEncoder {
  private readonly chunks: Buffer[] = []
  private chunk: Buffer | undefined
  private offset = 0
  private closedBytes = 0
  private numbersEnd = 0
  private numberAt = 0

  /** `firstChunk`: a buffer to fill first instead of a new one (see encodedText). */
  constructor(
    private readonly chunkBytes = CHUNK_BYTES,
    firstChunk?: Buffer,
  ) {
    this.chunk = firstChunk
  }

  write(text: string): void {
    const buffer = this.room(text.length * MAX_BYTES_PER_UNIT)
    this.offset += buffer.write(text, this.offset)
  }

  /** Bytes encoded once (a fixed piece of a layout, a quoted name). */
  writeBytes(bytes: Uint8Array): void {
    this.room(bytes.length).set(bytes, this.offset)
    this.offset += bytes.length
  }

  /**
   * The numbers the next writeNumber calls copy, in order: `list` is a JSON array of numbers as
   * JSON.stringify writes it (all ASCII). It is copied into bytes once, and each number read from there:
   * reading a string's characters one by one costs several times as much.
   */
  useNumbers(list: string): void {
    if (list.length > numbersScratch.length) numbersScratch = Buffer.allocUnsafeSlow(2 * list.length)
    numbersOwner = this
    this.numbersEnd = numbersScratch.write(list, 0, 'latin1')
    this.numberAt = 1
  }

  writeNumber(): void {
    const numbers = numbersScratch
    const end = this.numbersEnd
    let at = this.numberAt
    if (at >= end) throw new RangeError('no number left in the list given to useNumbers')
    if (numbersOwner !== this) throw new Error('another encoder was given numbers before these were written')
    const buffer = this.room(MAX_NUMBER_CHARS)
    let offset = this.offset
    for (
      let code = numbers[at] as number;
      code !== COMMA && code !== CLOSING_BRACKET && at < end;
      code = numbers[++at] as number
    ) {
      buffer[offset++] = code
    }
    this.offset = offset
    this.numberAt = at + 1
  }

  /** An array index or a count, as JSON writes it (any other number is written as JSON.stringify writes it). */
  writeCount(value: number): void {
    if (!(Number.isSafeInteger(value) && value >= 0)) {
      this.write(JSON.stringify(value))
      return
    }
    const buffer = this.room(MAX_NUMBER_CHARS)
    let digits = 1
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++
    let rest = value
    for (let at = this.offset + digits - 1; at >= this.offset; at--) {
      buffer[at] = DIGIT_ZERO + (rest % 10)
      rest = Math.floor(rest / 10)
    }
    this.offset += digits
  }

  finish(): EncodedJson {
    this.closeChunk()
    return new EncodedJson(this.chunks, this.closedBytes)
  }

  /** The current buffer, with room for `bytes` more (a new one when it has not). */
  private room(bytes: number): Buffer {
    if (this.chunk !== undefined && this.offset + bytes <= this.chunk.length) return this.chunk
    this.closeChunk()
    this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes))
    return this.chunk
  }

  private closeChunk(): void {
    // Only the bytes written are sent: the rest of an allocUnsafe buffer is never exposed.
    if (this.chunk !== undefined && this.offset > 0) {
      this.chunks.push(this.chunk.subarray(0, this.offset))
      this.closedBytes += this.offset
    }
    this.chunk = undefined
    this.offset = 0
  }
}

/** The buffer encodedText writes into: one for the process, reused by every call. */
const TEXT_SCRATCH = Buffer.allocUnsafeSlow(CHUNK_BYTES)
let textScratchInUse = false

/**
 * The text `write` writes, for an answer sent as a string: written into one buffer every call reuses and
 * decoded before the call returns (writing is synchronous), so no buffer is allocated per answer. A call
 * made while another is writing gets buffers of its own.
 */
export function encodedText(write: (out: JsonEncoder) => void): string {
  const reusing = !textScratchInUse
  const out = reusing ? new JsonEncoder(CHUNK_BYTES, TEXT_SCRATCH) : new JsonEncoder()
  textScratchInUse = true
  try {
    write(out)
    return out.finish().text
  } finally {
    if (reusing) textScratchInUse = false
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

/** The API contract's error envelope with the error's status and its own headers (Retry-After…). */
export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, errorEnvelope(error), { ...headers, ...error.headers })
}
