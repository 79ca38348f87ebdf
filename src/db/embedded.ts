import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { cube } from '@electric-sql/pglite/contrib/cube'
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedPostgres {
  /** Where postgres.js connects: the Unix socket (its `path` option); no TCP port is opened. */
  connection: { path: string }
  /** The whole data directory as a gzipped tarball, to start from next time. */
  dump(): Promise<Blob>
  stop(): Promise<void>
}

/**
 * Starts an in-memory PGlite (with cube + earthdistance) behind a PostgreSQL wire-protocol socket,
 * optionally from a data-directory snapshot (skips initdb, migrations and seeding).
 *
 * PGlite answers every connection as `postgres` without asking for a password (pglite-socket has no
 * authentication), so the socket is where the lock is: a Unix socket (mode 0600) in a directory of
 * its own made for this start (mkdtemp, mode 0700), which no other user of the machine may enter.
 * A loopback TCP port would be open to every local user and process.
 */
export async function startEmbeddedPostgres(options: { snapshot?: Blob } = {}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ extensions: { cube, earthdistance }, loadDataDir: options.snapshot })
  const dir = await mkdtemp(join(tmpdir(), 'survival-embedded-'))
  const path = join(dir, '.s.PGSQL.5432')
  const server = new PGLiteSocketServer({ db, path })
  try {
    await chmod(dir, 0o700)
    await server.start()
    await chmod(path, 0o600)
  } catch (error) {
    await server.stop()
    await db.close()
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  return {
    connection: { path },
    dump: () => db.dumpDataDir('gzip'),
    stop: async () => {
      await server.stop()
      await db.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
