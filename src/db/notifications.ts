import postgres from 'postgres'

/** What a follower of a NOTIFY channel is told. */
export interface ChannelHandlers {
  /** One notice, with its payload. */
  notice(payload: string): void
  /**
   * LISTEN took effect: at the start, and again after every reconnection. Notices sent while the
   * connection was away are lost, so whatever was learnt from them must be learnt afresh now.
   */
  listening(): void
  /** The listening connection was lost; it is being re-established. */
  lost?(): void
}

export interface ChannelFollower {
  /** Whether LISTEN is in effect right now. */
  readonly listening: boolean
  close(): Promise<void>
}

export interface FollowOptions {
  /** Wait between attempts to listen again while the database cannot be reached. */
  retryMs?: number
  applicationName?: string
}

/**
 * Follows one PostgreSQL NOTIFY channel on a connection of its own, for as long as the process runs:
 * when the connection drops it listens again (retrying every `retryMs` while the database is away) and
 * says so, since the notices of the gap are gone. postgres.js's own `listen` re-listens only once.
 */
export function followChannel(
  url: string,
  channel: string,
  handlers: ChannelHandlers,
  options: FollowOptions = {},
): ChannelFollower {
  const retryMs = options.retryMs ?? 250
  let closed = false
  let listening = false
  let attempt: Promise<void> | null = null
  let retry: NodeJS.Timeout | undefined

  const sql = postgres(url, {
    max: 1,
    // One connection, never retired while it is healthy: LISTEN lives on it.
    max_lifetime: null,
    connect_timeout: 3,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'survival-api listener' },
    ...deliverNotices((name, payload) => {
      if (name === channel) handlers.notice(payload)
    }),
    onclose: () => {
      if (closed) return
      if (listening) {
        listening = false
        handlers.lost?.()
      }
      listen()
    },
  })

  function listen(): void {
    if (closed || attempt || retry) return
    attempt = sql`LISTEN ${sql(channel)}`
      .then(() => {
        if (closed) return
        listening = true
        handlers.listening()
      })
      .catch(() => {
        if (closed) return
        retry = setTimeout(() => {
          retry = undefined
          listen()
        }, retryMs)
        retry.unref()
      })
      .finally(() => {
        attempt = null
      })
  }

  listen()
  return {
    get listening() {
      return listening
    },
    close: async () => {
      closed = true
      listening = false
      clearTimeout(retry)
      await sql.end({ timeout: 1 })
    },
  }
}

/**
 * postgres.js hands every NOTIFY to its `onnotify` option (its own `listen` is built on it); the
 * typings leave the option out.
 */
function deliverNotices(onnotify: (channel: string, payload: string) => void): object {
  return { onnotify }
}
