import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SPECIES } from '../domain/species.ts'
import { BASE_VERSIONS_URL, loadBaseVersions } from './base-versions.ts'

const shipped = JSON.parse(readFileSync(BASE_VERSIONS_URL, 'utf8'))
const ARTIFACT = new URL('mycel-0.2.json', BASE_VERSIONS_URL)

/** A manifest beside a copy of the shipped artifact, changed by `change`, in a folder of its own. */
function manifestWith(change: (manifest: typeof shipped, folder: string) => void): URL {
  const folder = mkdtempSync(join(tmpdir(), 'model-versions-'))
  copyFileSync(ARTIFACT, join(folder, 'mycel-0.2.json'))
  const manifest = structuredClone(shipped)
  change(manifest, folder)
  writeFileSync(join(folder, 'versions.json'), JSON.stringify(manifest))
  return pathToFileURL(join(folder, 'versions.json'))
}

describe('the shipped base versions', () => {
  it('load, each artifact matching its listed SHA-256, with the current one among them', () => {
    const { current, versions } = loadBaseVersions(SPECIES)
    expect(current).toBe('0.2')
    expect(versions.map((v) => [v.model.version, v.releasedAt.toISOString()])).toEqual([
      ['0.2', '2026-11-24T00:00:00.000Z'],
    ])
  })

  it('refuse to start when an artifact changed in place: a released version never changes', () => {
    const url = manifestWith((_manifest, folder) => {
      const artifact = readFileSync(join(folder, 'mycel-0.2.json'), 'utf8')
      writeFileSync(
        join(folder, 'mycel-0.2.json'),
        artifact.replace('"codename": "chanterelle"', '"codename": "morel"'),
      )
    })
    expect(() => loadBaseVersions(SPECIES, url)).toThrow(/never changes/)
  })

  it('refuse a manifest that lists an artifact under another version, twice, or a current it lacks', () => {
    const renamed = manifestWith((m) => {
      m.versions[0].version = '0.3'
      m.current = '0.3'
    })
    expect(() => loadBaseVersions(SPECIES, renamed)).toThrow(/is version 0.2, listed as 0.3/)
    const twice = manifestWith((m) => m.versions.push({ ...m.versions[0] }))
    expect(() => loadBaseVersions(SPECIES, twice)).toThrow(/twice/)
    const missing = manifestWith((m) => {
      m.current = '0.1'
    })
    expect(() => loadBaseVersions(SPECIES, missing)).toThrow(/current 0.1/)
  })
})
