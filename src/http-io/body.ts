import type { IncomingMessage } from 'node:http'

/** The client closed the connection before its body arrived: nobody is left to answer, nothing is wrong here. */
export class ClientClosedError extends Error {
  constructor(cause: unknown) {
    super('client closed the connection while sending the body', { cause })
    this.name = 'ClientClosedError'
  }
}

/**
 * The whole request body; throws `tooLarge()` as soon as it passes `limit` bytes. A body whose declared
 * Content-Length is within the limit cannot pass it (the HTTP parser stops at the declared length), so it
 * is read with stream events: an async iterator per request cost a small answer several per cent of its
 * CPU. Any other body (chunked) is read with `for await`, which destroys the request when it stops early.
 */
export function readBodyBytes(
  req: IncomingMessage,
  limit: number,
  tooLarge: () => Error = () => new Error(`request body over ${limit} bytes`),
): Promise<Buffer> {
  const declared = req.headers['content-length']
  if (declared !== undefined && req.headers['transfer-encoding'] === undefined && Number(declared) <= limit) {
    return readDeclaredBody(req)
  }
  return readUpToLimit(req, limit, tooLarge)
}

function readDeclaredBody(req: IncomingMessage): Promise<Buffer> {
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

async function readUpToLimit(req: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length
      if (size > limit) throw tooLarge()
      chunks.push(chunk as Buffer)
    }
  } catch (error) {
    if (req.destroyed && size <= limit) throw new ClientClosedError(error)
    throw error
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
}
