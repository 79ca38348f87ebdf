import type { IncomingMessage } from 'node:http'

/**
 * Lingering close, as nginx does it. A body refused before it was all read (413) is still arriving
 * when the answer goes out, and a socket closed with bytes unread, or that gets more after closing,
 * is reset by the kernel: the reset can destroy the answer before the client reads it, and a client
 * still writing gets EPIPE. So the rest of the body is dropped as it arrives (never kept) and, once
 * the answer that closes the connection is sent, our side is shut for writing and the socket destroyed
 * only when the client has sent everything or hung up — or at the bounds below, whichever comes first.
 */
export interface LingerBounds {
  /** The longest the socket stays open after the answer. */
  totalMs: number
  /** Closed sooner when the client sends nothing for this long. */
  idleMs: number
  /** The most bytes dropped, counted from the refusal; past it the socket is destroyed at once. */
  bytes: number
}

/**
 * nginx reads for lingering_time 30 s, waiting at most lingering_timeout 5 s for each piece. Shorter here,
 * so that a flood of refused uploads holds few sockets: in 5 s a client delivers what it had in flight
 * when the 413 came (a socket send buffer of a few MiB, plus the path) at 1 MB/s or better; 2 s of
 * silence outlasts the first retransmission of a lost segment (RTO 1 s); 32 MiB is 5 s of a fast LAN
 * client, and no more of a body that will never be used.
 */
export const LINGER: LingerBounds = { totalMs: 5_000, idleMs: 2_000, bytes: 32 * 1024 * 1024 }

const armed = new WeakSet<IncomingMessage>()

/**
 * Call where a request's body is given up before its end: drops the rest as it arrives, and makes the
 * close after the answer (Connection: close) a lingering one. Does nothing once the body has all
 * arrived, or when the connection is already gone.
 */
export function lingeringClose(req: IncomingMessage, bounds: LingerBounds = LINGER): void {
  const socket = req.socket
  if (!socket || socket.destroyed || req.complete || armed.has(req)) return
  armed.add(req)
  let dropped = 0
  let idle: NodeJS.Timeout | undefined
  // Whatever still reads the body (a pipe into gunzip) lets go, so that nothing holds the flow back.
  req.unpipe()
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > bounds.bytes) socket.destroy()
    else idle?.refresh()
  })
  req.resume()
  // Node ends a connection whose answer said Connection: close with destroySoon(): shut our side, then
  // destroy once the answer is sent. This one waits for the client before destroying.
  socket.destroySoon = () => {
    if (socket.writable) socket.end()
    const close = () =>
      socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy())
    if (req.complete) return close()
    const deadline = setTimeout(() => socket.destroy(), bounds.totalMs).unref()
    idle = setTimeout(() => socket.destroy(), bounds.idleMs).unref()
    req.once('end', close)
    socket.once('end', close)
    socket.once('close', () => {
      clearTimeout(deadline)
      clearTimeout(idle)
    })
  }
}
