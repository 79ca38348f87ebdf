import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const CLIENT_SRC = resolve(import.meta.dirname, '../src')
/**
 * What the client and the scorer may use besides Node and each other: the dependencies of the client's own
 * package.json, nothing of the server.
 */
const PACKAGES = Object.keys(
  (
    JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
    }
  ).dependencies ?? {},
)

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  )
}

describe('clients/typescript/src stands alone', () => {
  it('imports only Node, its own modules and its few packages (never the server, tests or seed)', () => {
    const strays: string[] = []
    const seen = new Set<string>()
    for (const file of files(CLIENT_SRC)) {
      for (const [, name = ''] of readFileSync(file, 'utf8').matchAll(
        /^\s*(?:import|export)[^'"]*from\s+'([^']+)'/gm,
      )) {
        seen.add(name)
        const own =
          name.startsWith('.') && !relative(CLIENT_SRC, resolve(dirname(file), name)).startsWith('..')
        const allowed = name.startsWith('node:') || own || PACKAGES.includes(name)
        if (!allowed) strays.push(`${relative(CLIENT_SRC, file)} → ${name}`)
      }
    }
    expect(strays).toEqual([])
    expect([...seen]).toEqual(expect.arrayContaining(['openapi-fetch', './client.ts', 'node:fs']))
    // Every dependency its package.json lists is used (the root's scripts install them for it).
    expect(PACKAGES.filter((name) => !seen.has(name))).toEqual([])
  })
})
