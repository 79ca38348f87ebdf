import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { loadSurvivalModel } from '../../model/index.ts'
import { generateSites } from '../../seed/generate-sites.ts'
import type { Site } from '../../types.ts'
import type { SitePages } from '../ports/sites.ts'
import { SPECIES } from '../species.ts'
import type { SurvivalMapService } from '../survival-map.ts'
import { FeatureCollections, type FeatureCursor } from './feature-collections.ts'

const SITES = generateSites()
  .slice(0, 60)
  .map((site, i) => ({ ...site, id: 10 + i * 3 }) as Site)
const model = loadSurvivalModel(SPECIES)

/** The store's pages, over an array. */
const pages: SitePages = {
  async page(_box, start, limit) {
    const from = 'skip' in start ? start.skip : SITES.findIndex((s) => s.id > start.afterId)
    return {
      sites: from < 0 ? [] : SITES.slice(from, from + limit),
      matched: SITES.length,
      dataVersion: 'sites_000000000000',
    }
  },
  async one(id) {
    return { site: SITES.find((s) => s.id === id) ?? null, dataVersion: 'sites_000000000000' }
  },
}

// The survival map is not asked for here: its cells are tested through /ogc (test/ogc).
const collections = new FeatureCollections(pages, {} as SurvivalMapService)
const query = { box: null, species: null, method: null, climate: null, model }

async function everyFeatureId(limit: number): Promise<string[]> {
  const ids: string[] = []
  let cursor: FeatureCursor | null = { siteId: 0, combination: 0 }
  while (cursor) {
    const page = await collections.survivalPage({ ...query, limit, start: { cursor } })
    expect(page.features.length).toBeLessThanOrEqual(limit)
    ids.push(...page.features.map((f) => `${f.site.id}-${f.species.code}-${f.method}`))
    cursor = page.next && 'cursor' in page.next ? page.next.cursor : null
  }
  return ids
}

describe('survival features a page at a time', () => {
  it('cursor pages of any size list each site × species × method once, in order', async () => {
    const all = await everyFeatureId(10_000)
    expect(all).toHaveLength(SITES.length * 40)
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 130 }), async (limit) => {
        expect(await everyFeatureId(limit)).toEqual(all)
      }),
      { numRuns: 20 },
    )
  })

  it('an offset page is the same slice of that list', async () => {
    const all = await everyFeatureId(10_000)
    await fc.assert(
      fc.asyncProperty(fc.nat(2500), fc.integer({ min: 1, max: 90 }), async (offset, limit) => {
        const page = await collections.survivalPage({ ...query, limit, start: { offset } })
        expect(page.features.map((f) => `${f.site.id}-${f.species.code}-${f.method}`)).toEqual(
          all.slice(offset, offset + limit),
        )
        expect(page.matched).toBe(all.length)
        expect(page.next === null).toBe(offset + limit >= all.length)
      }),
      { numRuns: 60 },
    )
  })

  it('one feature by its id equals the same feature in a page; a malformed id is none', async () => {
    const page = await collections.survivalPage({ ...query, species: 'PSME', limit: 3, start: { offset: 0 } })
    const [first] = page.features
    const found = await collections.survivalFeature(`${first?.site.id}-PSME-manual`, null, model)
    expect(found.feature).toEqual(first)
    for (const id of [
      '',
      'x',
      '10-PSME',
      '0-PSME-manual',
      '10-NOPE-manual',
      '10-PSME-helicopter',
      '11-PSME-manual',
    ])
      expect((await collections.survivalFeature(id, null, model)).feature).toBeNull()
  })
})
