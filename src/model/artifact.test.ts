import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SPECIES } from '../domain/species.ts'
import {
  DEFAULT_ARTIFACT_URL,
  FACTOR_KEYS,
  type ModelArtifact,
  parseArtifact,
  readArtifact,
} from './artifact.ts'
import { loadSurvivalModel } from './loader.ts'

const artifact = readArtifact()
const edited = (edit: (copy: ModelArtifact) => void): unknown => {
  const copy = structuredClone(artifact)
  edit(copy)
  return copy
}

describe('mycel 0.2 artifact', () => {
  const model = loadSurvivalModel(SPECIES)

  it('identifies itself as series mycel, version 0.2', () => {
    expect(model.series).toBe('mycel')
    expect(model.version).toBe('0.2')
    expect(model.codename).toBe('chanterelle')
  })

  it('exposes every factor once, with unique non-empty names and descriptions', () => {
    expect(model.factors.map((factor) => factor.key).sort()).toEqual([...FACTOR_KEYS].sort())
    const names = model.factors.map((factor) => factor.name)
    expect(new Set(names).size).toBe(names.length)
    for (const factor of model.factors) {
      expect(factor.name.trim()).not.toBe('')
      expect(factor.description.trim()).not.toBe('')
    }
  })

  it('loads from an explicit file path', () => {
    expect(loadSurvivalModel(SPECIES, fileURLToPath(DEFAULT_ARTIFACT_URL)).version).toBe('0.2')
  })

  it('rejects intercepts that rise with horizon', () => {
    const bad = edited((copy) => {
      copy.horizons.manual['5'].intercept = copy.horizons.manual['1'].intercept + 1
    })
    expect(() => parseArtifact(bad)).toThrow(/intercepts must be non-increasing/)
  })

  it('rejects scales that shrink with horizon', () => {
    const bad = edited((copy) => {
      copy.horizons.drone_seeded['3'].scale = copy.horizons.drone_seeded['1'].scale / 2
    })
    expect(() => parseArtifact(bad)).toThrow(/scales must be non-decreasing/)
  })

  it('rejects negative weights, which would turn a penalty into a bonus', () => {
    const bad = edited((copy) => {
      const first = copy.factors[0]
      if (first) first.methodWeight.manual = -1
    })
    expect(() => parseArtifact(bad)).toThrow()
  })

  it('rejects a missing or duplicated factor', () => {
    expect(() => parseArtifact(edited((copy) => void copy.factors.pop()))).toThrow(/exactly once/)
    expect(() =>
      parseArtifact(
        edited((copy) => {
          const first = copy.factors[0]
          if (first) copy.factors.push(first)
        }),
      ),
    ).toThrow()
  })
})
