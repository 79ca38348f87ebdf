import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { PROJECT_ROOT } from '../project-files.ts'

const ROOT = PROJECT_ROOT
/** Everything that decides the embedded store's content: the migrations and the seed (code and data). */
const INPUT_DIRS = ['sql', 'src/seed', 'data']

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return filesUnder(path)
      return Promise.resolve(entry.name.endsWith('.test.ts') ? [] : [path])
    }),
  )
  return nested.flat().sort()
}

/** Changes whenever a migration, the seed generator or its data change, so a stale snapshot is never used. */
export async function snapshotKey(): Promise<string> {
  const hash = createHash('sha256')
  for (const dir of INPUT_DIRS) {
    for (const file of await filesUnder(join(ROOT, dir))) {
      hash
        .update(relative(ROOT, file))
        .update('\0')
        .update(await readFile(file))
        .update('\0')
    }
  }
  return hash.digest('hex').slice(0, 16)
}

function snapshotPath(cacheDir: string, key: string): string {
  return join(cacheDir, `embedded-${key}.tar.gz`)
}

export async function readSnapshot(cacheDir: string, key: string): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(snapshotPath(cacheDir, key))])
  } catch {
    return undefined
  }
}

/** Best effort (a read-only disk only costs the next start its seeding time); written atomically. */
export async function writeSnapshot(cacheDir: string, key: string, snapshot: Blob): Promise<boolean> {
  try {
    await mkdir(cacheDir, { recursive: true })
    const target = snapshotPath(cacheDir, key)
    const partial = `${target}.${process.pid}.partial`
    await writeFile(partial, Buffer.from(await snapshot.arrayBuffer()))
    await rename(partial, target)
    return true
  } catch {
    return false
  }
}
