import { PGlite } from '@electric-sql/pglite'
import { cube } from '@electric-sql/pglite/contrib/cube'
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedPostgres {
  host: string
  port: number
  /** The whole data directory as a gzipped tarball, to start from next time. */
  dump(): Promise<Blob>
  stop(): Promise<void>
}

/**
 * Starts an in-memory PGlite (with cube + earthdistance) behind a PostgreSQL wire-protocol socket on
 * loopback, optionally from a data-directory snapshot (skips initdb, migrations and seeding).
 */
export async function startEmbeddedPostgres(options: { snapshot?: Blob } = {}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ extensions: { cube, earthdistance }, loadDataDir: options.snapshot })
  const host = '127.0.0.1'
  const server = new PGLiteSocketServer({ db, host, port: 0 })
  await server.start()
  const address = server.getServerConn()
  const port = Number(address.slice(address.lastIndexOf(':') + 1))
  return {
    host,
    port,
    dump: () => db.dumpDataDir('gzip'),
    stop: async () => {
      await server.stop()
      await db.close()
    },
  }
}
