/**
 * The streamed request body of the client's uploads (`POST /v1/jobs`, `POST /v1/surveys/uploads`):
 * what the caller gives — a file path, a Node Readable, a web ReadableStream, any AsyncIterable of
 * bytes, or a Blob — opened as a web ReadableStream, sent chunked (`duplex: 'half'`, never read whole)
 * and counted as it goes out. A path or a Blob can be opened again, the whole body from its first
 * byte, so an upload of one may be sent again (on 429/503); a stream can be read once, so it is sent once.
 */
import { constants, createReadStream } from 'node:fs'
import { access } from 'node:fs/promises'
import { Readable } from 'node:stream'

/** What an upload reads: a file (path), a Node Readable, a web ReadableStream, an AsyncIterable of bytes, a Blob. */
export type UploadInput = string | Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Blob

export interface UploadBody {
  /** The body from its first byte; for a path, the file opened anew (the previous opening closed). */
  open(): ReadableStream<Uint8Array>
  /** True for a path or a Blob: `open` may be called again, for a retry. A stream is sent once. */
  reopenable: boolean
}

/** The openapi-fetch options that send `stream` as the body, as it is and chunked. */
export interface StreamedInit {
  body: never
  bodySerializer: (body: unknown) => unknown
  duplex: 'half'
}

/** True for the inputs an upload takes (and not, say, a FeatureCollection object). */
export function isUploadInput(value: unknown): value is UploadInput {
  return (
    typeof value === 'string' ||
    value instanceof Readable ||
    value instanceof ReadableStream ||
    value instanceof Blob ||
    (typeof value === 'object' && value !== null && Symbol.asyncIterator in value)
  )
}

/**
 * Runs `send` with `input` as a body, and closes whatever it opened afterwards (a Node Readable the
 * caller gave included). A path that cannot be read is its own error (ENOENT…), before any request.
 */
export async function withUploadBody<T>(
  input: UploadInput,
  send: (body: UploadBody) => Promise<T>,
): Promise<T> {
  if (typeof input === 'string') await access(input, constants.R_OK)
  let opened: Readable | null = null
  const open = (): ReadableStream<Uint8Array> => {
    if (input instanceof Blob) return input.stream() as ReadableStream<Uint8Array>
    if (input instanceof ReadableStream) return input
    opened?.destroy()
    opened =
      typeof input === 'string'
        ? createReadStream(input)
        : input instanceof Readable
          ? input
          : Readable.from(input, { objectMode: false })
    return Readable.toWeb(opened) as ReadableStream<Uint8Array>
  }
  try {
    return await send({ open, reopenable: typeof input === 'string' || input instanceof Blob })
  } finally {
    ;(opened as Readable | null)?.destroy()
  }
}

/** `stream` as an openapi-fetch body, reporting the bytes sent so far to `onProgress`. */
export function streamed(
  stream: ReadableStream<Uint8Array>,
  onProgress?: (bytesSent: number) => void,
): StreamedInit {
  return { body: counted(stream, onProgress) as never, bodySerializer: (body) => body, duplex: 'half' }
}

/** Passes `stream` through, reporting the bytes that went by. */
function counted(stream: ReadableStream<Uint8Array>, onProgress?: (bytes: number) => void) {
  if (!onProgress) return stream
  let bytes = 0
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength
        onProgress(bytes)
        controller.enqueue(chunk)
      },
    }),
  )
}
