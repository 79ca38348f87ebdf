import { connect, createServer, type Server, type Socket } from 'node:net'

/** A loopback TCP proxy a test can cut (drop every connection, refuse new ones) and restore. */
export interface TcpProxy {
  port: number
  cut(): void
  restore(): void
  close(): Promise<void>
}

export interface TcpProxyOptions {
  /**
   * Let each connection's first message through, then reset it (TCP RST) at the next thing the client
   * sends: for PostgreSQL, whatever the driver asks first after start-up is cut mid-flight.
   */
  resetAfterFirstMessage?: boolean
}

export async function startTcpProxy(
  target: { host: string; port: number },
  options: TcpProxyOptions = {},
): Promise<TcpProxy> {
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
    if (options.resetAfterFirstMessage) {
      let first = true
      client.on('data', (chunk) => {
        if (!first) {
          client.resetAndDestroy()
          upstream.destroy()
          return
        }
        first = false
        upstream.write(chunk)
      })
    } else {
      client.pipe(upstream)
    }
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
