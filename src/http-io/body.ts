import type { IncomingMessage } from 'node:http'

/** The whole request body; throws `tooLarge()` as soon as it passes `limit` bytes. */
export async function readBodyBytes(
  req: IncomingMessage,
  limit: number,
  tooLarge: () => Error = () => new Error(`request body over ${limit} bytes`),
): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) throw tooLarge()
    chunks.push(chunk as Buffer)
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
}
