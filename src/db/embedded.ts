import { PGlite } from '@electric-sql/pglite'
import { cube } from '@electric-sql/pglite/contrib/cube'
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedPostgres {
  host: string
  port: number
  stop(): Promise<void>
}

/** Starts an in-memory PGlite (with cube + earthdistance) behind a PostgreSQL wire-protocol socket on loopback. */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ extensions: { cube, earthdistance } })
  const host = '127.0.0.1'
  const server = new PGLiteSocketServer({ db, host, port: 0 })
  await server.start()
  const address = server.getServerConn()
  const port = Number(address.slice(address.lastIndexOf(':') + 1))
  return {
    host,
    port,
    stop: async () => {
      await server.stop()
      await db.close()
    },
  }
}
