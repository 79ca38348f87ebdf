import { describe, expect, it } from 'vitest'
import { findSpecies, SPECIES } from '../domain/species.ts'
import type { Horizon, PlantingMethod, SiteAttributes } from '../types.ts'
import { loadSurvivalModel } from './loader.ts'

const model = loadSurvivalModel(SPECIES)

function survival(
  code: string,
  site: SiteAttributes,
  method: PlantingMethod = 'manual',
  horizon: Horizon = 3,
) {
  const species = findSpecies(code)
  if (species === undefined) throw new Error(`unknown species ${code}`)
  const [prediction] = model.predict(site, species, method, [horizon])
  if (prediction === undefined) throw new Error('no prediction')
  return prediction.survivalProbability
}

const typical = {
  slopeDeg: 18,
  aspectDeg: 90,
  heatLoadIndex: 0.5,
  soilDepthCm: 90,
  rockFractionPct: 10,
  vegetationCoverPct: 35,
  browsePressureIndex: 0.3,
}

const foggyCoast: SiteAttributes = {
  ...typical,
  zone: 'coast',
  elevationM: 150,
  annualPrecipMm: 2600,
  summerWaterDeficitMm: 40,
  growingSeasonFrostDays: 1,
}

const hotDryEastside: SiteAttributes = {
  ...typical,
  zone: 'eastside_cascades',
  elevationM: 900,
  aspectDeg: 220,
  heatLoadIndex: 0.85,
  annualPrecipMm: 450,
  summerWaterDeficitMm: 480,
  growingSeasonFrostDays: 12,
}

const lowHotLowland: SiteAttributes = {
  ...typical,
  zone: 'westside_lowland',
  elevationM: 200,
  aspectDeg: 210,
  heatLoadIndex: 0.8,
  annualPrecipMm: 1100,
  summerWaterDeficitMm: 240,
  growingSeasonFrostDays: 1,
}

const highCoolSubalpine: SiteAttributes = {
  ...typical,
  zone: 'subalpine',
  elevationM: 1800,
  aspectDeg: 20,
  heatLoadIndex: 0.25,
  annualPrecipMm: 2200,
  summerWaterDeficitMm: 80,
  growingSeasonFrostDays: 22,
}

describe('species niches', () => {
  it('Sitka spruce thrives on the foggy coast and fails far inland', () => {
    const coast = survival('PISI', foggyCoast)
    const inland = survival('PISI', hotDryEastside)
    expect(coast).toBeGreaterThan(0.85)
    expect(inland).toBeLessThan(0.1)
    expect(coast - inland).toBeGreaterThan(0.7)
  })

  it('ponderosa pine tolerates eastside drought far better than hemlock, Sitka spruce and silver fir', () => {
    const ponderosa = survival('PIPO', hotDryEastside)
    expect(ponderosa).toBeGreaterThan(0.6)
    for (const code of ['TSHE', 'PISI', 'ABAM']) {
      expect(ponderosa - survival(code, hotDryEastside)).toBeGreaterThan(0.4)
    }
  })

  it('subalpine species suffer on low hot sites compared with high cool sites', () => {
    for (const code of ['ABLA', 'TSME', 'PIEN', 'ABPR']) {
      const high = survival(code, highCoolSubalpine)
      const low = survival(code, lowHotLowland)
      expect(high).toBeGreaterThan(0.7)
      expect(high - low).toBeGreaterThan(0.35)
    }
  })

  it('red alder is frost-sensitive: frost hurts it far more than lodgepole pine or Douglas-fir', () => {
    const mild: SiteAttributes = {
      ...lowHotLowland,
      heatLoadIndex: 0.5,
      summerWaterDeficitMm: 150,
      zone: 'westside_cascades',
      elevationM: 600,
      annualPrecipMm: 1800,
    }
    const frosty: SiteAttributes = { ...mild, growingSeasonFrostDays: 25 }
    const alderLoss = survival('ALRU', mild) - survival('ALRU', frosty)
    expect(alderLoss).toBeGreaterThan(0.15)
    for (const conifer of ['PSME', 'PICO']) {
      expect(alderLoss).toBeGreaterThan(2 * (survival(conifer, mild) - survival(conifer, frosty)))
    }
    expect(survival('ALRU', frosty)).toBeLessThan(survival('PSME', frosty))
  })

  it('Oregon white oak is drought-hardy where red alder and western hemlock are not', () => {
    const dryOakSite: SiteAttributes = {
      ...hotDryEastside,
      zone: 'klamath',
      elevationM: 500,
      annualPrecipMm: 700,
      summerWaterDeficitMm: 420,
    }
    const oak = survival('QUGA', dryOakSite)
    expect(oak).toBeGreaterThan(0.6)
    expect(oak - survival('ALRU', dryOakSite)).toBeGreaterThan(0.3)
    expect(oak - survival('TSHE', dryOakSite)).toBeGreaterThan(0.3)
  })

  it('shade-intolerant larch loses more to competing vegetation than shade-tolerant hemlock', () => {
    const site: SiteAttributes = {
      ...highCoolSubalpine,
      zone: 'okanogan_selkirk',
      elevationM: 1100,
      annualPrecipMm: 1100,
      summerWaterDeficitMm: 200,
      growingSeasonFrostDays: 10,
    }
    const brushy: SiteAttributes = { ...site, vegetationCoverPct: 95 }
    const larchLoss = survival('LAOC', site) - survival('LAOC', brushy)
    const hemlockLoss = survival('TSHE', site) - survival('TSHE', brushy)
    expect(larchLoss).toBeGreaterThan(hemlockLoss)
  })
})
