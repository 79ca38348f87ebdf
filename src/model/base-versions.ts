import { hash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { projectFile } from '../project-files.ts'
import type { Species, SurvivalModel } from '../types.ts'
import { parseArtifact } from './artifact.ts'
import { createSurvivalModel } from './evaluator.ts'

/** The list of base versions shipped beside the code (src/model/artifacts/versions.json). */
export const BASE_VERSIONS_URL = projectFile('src/model/artifacts/versions.json')

const manifestSchema = z.strictObject({
  description: z.string(),
  current: z.string().min(1),
  versions: z
    .array(
      z.strictObject({
        version: z.string().min(1),
        file: z.string().regex(/^[\w.-]+\.json$/),
        releasedAt: z.iso.datetime(),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
      }),
    )
    .min(1),
})

export interface BaseVersion {
  model: SurvivalModel
  releasedAt: Date
  /** The artifact's SHA-256, as listed and as read. */
  sha256: string
}

/**
 * Every base version of the manifest, each artifact read, checked against its listed SHA-256 and
 * version, and prepared for the species of `catalogue`; `current` is the one answers use by default.
 * A changed artifact stops the start: a version is never edited in place.
 */
export function loadBaseVersions(
  catalogue: readonly Species[],
  manifestUrl: URL = BASE_VERSIONS_URL,
): { current: string; versions: BaseVersion[] } {
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(manifestUrl, 'utf8')))
  const versions = manifest.versions.map((entry) => {
    const url = new URL(entry.file, manifestUrl)
    const bytes = readFileSync(url)
    const sha256 = hash('sha256', bytes, 'hex')
    if (sha256 !== entry.sha256)
      throw new Error(
        `model artifact ${entry.file} has SHA-256 ${sha256}, not the ${entry.sha256} listed for version ${entry.version}: a released version never changes; ship the change as a new version`,
      )
    const artifact = parseArtifact(JSON.parse(bytes.toString('utf8')), `model artifact ${entry.file}`)
    if (artifact.version !== entry.version)
      throw new Error(
        `model artifact ${entry.file} is version ${artifact.version}, listed as ${entry.version}`,
      )
    return { model: createSurvivalModel(artifact, catalogue), releasedAt: new Date(entry.releasedAt), sha256 }
  })
  if (new Set(versions.map((v) => v.model.version)).size !== versions.length)
    throw new Error('model versions.json lists a version twice')
  if (!versions.some((v) => v.model.version === manifest.current))
    throw new Error(`model versions.json: current ${manifest.current} is not a listed version`)
  return { current: manifest.current, versions }
}
