import { createServer } from 'node:net'

/** A TCP port on loopback that was free a moment ago (nothing listens on it until someone binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** True when `GET <url>/v1/health` answers 200; false while nothing listens there yet. */
export async function answersHealth(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/v1/health`)
    await response.arrayBuffer()
    return response.status === 200
  } catch {
    return false
  }
}
