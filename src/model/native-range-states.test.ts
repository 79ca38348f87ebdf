import { describe, expect, it } from 'vitest'
import { SPECIES } from '../domain/species.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { HORIZONS, PLANTING_METHODS } from '../types.ts'
import { loadSurvivalModel } from './index.ts'

const model = loadSurvivalModel(SPECIES)

describe('native ranges by state (species.csv range_states)', () => {
  it('changes only incense-cedar at Washington sites in its zones, and only for the worse', () => {
    const changed = new Map<string, number>()
    for (const site of generateSites()) {
      // Without its state a site is judged by its zone alone: the rule before states were added.
      const zoneOnly = { ...site, state: undefined }
      for (const species of SPECIES) {
        for (const method of PLANTING_METHODS) {
          const now = model.predict(site, species, method, HORIZONS)
          const before = model.predict(zoneOnly, species, method, HORIZONS)
          now.forEach((prediction, i) => {
            const old = before[i]?.survivalProbability as number
            if (prediction.survivalProbability === old) return
            expect(prediction.survivalProbability).toBeLessThan(old)
            const what = `${species.code} ${site.state} ${site.zone}`
            changed.set(what, (changed.get(what) ?? 0) + 1)
          })
        }
      }
    }
    const keys = [...changed.keys()]
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) {
      const [code, state, zone] = key.split(' ')
      expect(code).toBe('CADE')
      expect(state).toBe('WA')
      expect(['klamath', 'westside_cascades', 'eastside_cascades']).toContain(zone)
    }
  })
})
