import type { IncomingMessage } from 'node:http'

/** The client closed the connection before its body arrived: nobody is left to answer, nothing is wrong here. */
export class ClientClosedError extends Error {
  constructor(cause: unknown) {
    super('client closed the connection while sending the body', { cause })
    this.name = 'ClientClosedError'
  }
}

/** The whole request body; throws `tooLarge()` as soon as it passes `limit` bytes. */
export async function readBodyBytes(
  req: IncomingMessage,
  limit: number,
  tooLarge: () => Error = () => new Error(`request body over ${limit} bytes`),
): Promise<Buffer> {
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
