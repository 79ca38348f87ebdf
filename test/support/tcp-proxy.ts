import { connect, createServer, type Server, type Socket } from 'node:net'

/** A loopback TCP proxy a test can cut (drop every connection, refuse new ones) and restore. */
export interface TcpProxy {
  port: number
  cut(): void
  restore(): void
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let open = true
  const server: Server = createServer((client) => {
    if (!open) return void client.destroy()
    const upstream = connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    port,
    cut: () => {
      open = false
      for (const socket of sockets) socket.destroy()
    },
    restore: () => {
      open = true
    },
    close: async () => {
      open = false
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
