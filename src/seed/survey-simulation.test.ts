import { describe, expect, it } from 'vitest'
import {
  calibrationInTheLarge,
  groupStatistics,
  surveyStatistics,
} from '../domain/surveys/survey-statistics.ts'
import { ageInYears, survivalAtAge } from '../domain/surveys/survival-at-age.ts'
import { logit } from '../stats/logistic.ts'
import type { PlantingMethod } from '../types.ts'
import {
  betaBinomialDraw,
  betaDraw,
  createRandom,
  normalDraw,
  type SimulatedSite,
  type SurveyDesign,
  simulateSurvey,
  simulateSurveyFromSeed,
  truthKey,
} from './survey-simulation.ts'

function moments(draws: number[]) {
  const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length
  const variance = draws.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (draws.length - 1)
  return { mean, variance }
}

/** Five sites for a species × method, each a little drier than the last. */
function sitesFor(speciesCode: string, plantingMethod: PlantingMethod): SimulatedSite[] {
  return Array.from({ length: 5 }, (_, i) => {
    const horizons = { 1: 0.92 - 0.02 * i, 3: 0.82 - 0.03 * i, 5: 0.74 - 0.04 * i }
    return { speciesCode, plantingMethod, predictedAt: (age: number) => survivalAtAge(horizons, age) }
  })
}

const DESIGN: SurveyDesign = {
  sites: [...sitesFor('PSME', 'manual'), ...sitesFor('PSME', 'drone_seeded')],
  plotsPerSite: 6,
  planted: { min: 50, max: 150 },
  plantingYears: [2018, 2019, 2020, 2021],
  ageYears: { min: 0.5, max: 6 },
}

describe('random draws', () => {
  const random = createRandom(11)
  const many = (draw: () => number) => Array.from({ length: 20_000 }, draw)

  it('normal: mean 0, variance 1', () => {
    const { mean, variance } = moments(many(() => normalDraw(random)))
    expect(Math.abs(mean)).toBeLessThan(0.03)
    expect(variance).toBeCloseTo(1, 1)
  })

  it('beta: mean a/(a + b), variance ab/((a + b)²(a + b + 1)), small shapes too', () => {
    for (const [a, b] of [
      [2, 5],
      [0.4, 0.6],
    ] as const) {
      const { mean, variance } = moments(many(() => betaDraw(random, a, b)))
      expect(mean).toBeCloseTo(a / (a + b), 2)
      expect(variance / ((a * b) / ((a + b) ** 2 * (a + b + 1)))).toBeCloseTo(1, 1)
    }
  })

  it('beta-binomial: mean nμ, variance nμ(1 − μ)(1 + (n − 1)ρ)', () => {
    // n = 50, μ = 0.7, ρ = 0.1: variance 50·0.21·5.9 = 61.95 (binomial alone: 10.5).
    const { mean, variance } = moments(many(() => betaBinomialDraw(random, 50, 0.7, 0.1)))
    expect(mean).toBeCloseTo(35, 0)
    expect(variance / 61.95).toBeGreaterThan(0.95)
    expect(variance / 61.95).toBeLessThan(1.05)
    expect(() => betaBinomialDraw(random, 50, 0.7, 1)).toThrow(RangeError)
  })
})

describe('simulateSurvey', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const truth = { plotEffectSd: 0.3, clumping: 0.05 }
    expect(simulateSurveyFromSeed(7, DESIGN, truth)).toEqual(simulateSurveyFromSeed(7, DESIGN, truth))
    expect(simulateSurveyFromSeed(8, DESIGN, truth)).not.toEqual(simulateSurveyFromSeed(7, DESIGN, truth))
  })

  it('makes plots as an account would send them: dates, age, counts and the site’s prediction', () => {
    const plots = simulateSurveyFromSeed(3, DESIGN, { clumping: 0.05 })
    expect(plots).toHaveLength(60)
    for (const p of plots) {
      expect(p.plantedOn).toMatch(/^20(18|19|20|21)-0[2-5]-\d\d$/)
      expect(p.surveyedOn > p.plantedOn).toBe(true)
      expect(p.ageYears).toBe(ageInYears(new Date(p.plantedOn), new Date(p.surveyedOn)))
      expect(p.ageYears).toBeGreaterThanOrEqual(0.5 - 1 / 365)
      expect(p.ageYears).toBeLessThanOrEqual(6 + 1 / 365)
      expect(p.planted).toBeGreaterThanOrEqual(50)
      expect(p.planted).toBeLessThanOrEqual(150)
      expect(p.alive).toBeGreaterThanOrEqual(0)
      expect(p.alive).toBeLessThanOrEqual(p.planted)
      expect(p.predicted).toBe(DESIGN.sites[p.siteIndex]?.predictedAt(p.ageYears))
      expect(p.trueSurvival).toBeCloseTo(p.predicted, 12)
    }
  })

  it('shifts true survival by the species × method offset and the planting year’s effect', () => {
    const offsets = { [truthKey('PSME', 'drone_seeded')]: -0.6 }
    const plantingYearEffects = { 2019: 0.4 }
    for (const p of simulateSurveyFromSeed(4, DESIGN, { offsets, plantingYearEffects })) {
      const shift =
        (p.plantingMethod === 'drone_seeded' ? -0.6 : 0) + (p.plantedOn.startsWith('2019') ? 0.4 : 0)
      expect(logit(p.trueSurvival)).toBeCloseTo(logit(p.predicted) + shift, 10)
    }
  })

  it('with no offsets or effects, observed survival converges on the prediction', () => {
    const big = { ...DESIGN, plotsPerSite: 200 }
    const overall = groupStatistics(simulateSurveyFromSeed(5, big, { clumping: 0.05 }))
    // 2,000 plots, ~200,000 trees, φ ≈ 6: the standard error of the share is about 0.0025.
    expect(Math.abs(overall.observed - overall.meanPredicted)).toBeLessThan(0.008)
    expect(overall.differs).toBe(false)
    const unclumped = groupStatistics(simulateSurveyFromSeed(5, big))
    expect(Math.abs(unclumped.observed - unclumped.meanPredicted)).toBeLessThan(0.003)
  })

  it('a stated offset is recovered by calibration in the large, within its interval in about 90 % of surveys', () => {
    const offset = -0.5
    const offsets = { [truthKey('PSME', 'manual')]: offset, [truthKey('PSME', 'drone_seeded')]: offset }
    const random = createRandom(0x0ff5e7)
    const estimates: number[] = []
    let covered = 0
    for (let survey = 0; survey < 200; survey++) {
      const shift = calibrationInTheLarge(
        simulateSurvey(random, DESIGN, { offsets, plotEffectSd: 0.2, clumping: 0.03 }),
      )
      estimates.push(shift.estimate)
      if (shift.interval[0] <= offset && offset <= shift.interval[1]) covered++
    }
    // The plot effect pulls the average survival a little towards ½ (about 0.01 on the logit scale here).
    expect(moments(estimates).mean).toBeCloseTo(offset, 1)
    expect(covered / 200).toBeGreaterThanOrEqual(0.84)
    expect(covered / 200).toBeLessThanOrEqual(0.96)
  })
})

describe('the survey report finds the offsets it was given', () => {
  const cells = [
    ['PSME', 'manual', -0.7],
    ['PSME', 'drone_seeded', 0],
    ['TSHE', 'manual', 0],
    ['TSHE', 'drone_seeded', 0.8],
  ] as const
  const design: SurveyDesign = {
    ...DESIGN,
    sites: cells.flatMap(([species, method]) => sitesFor(species, method)),
  }
  const offsets = Object.fromEntries(
    cells.map(([species, method, offset]) => [truthKey(species, method), offset]),
  )

  it('flags every cell with an offset and about 10 % of those without, over 200 surveys', () => {
    const random = createRandom(0xa1a7)
    const flagged = new Map<string, number>()
    const SURVEYS = 200
    for (let survey = 0; survey < SURVEYS; survey++) {
      const plots = simulateSurvey(random, design, { offsets, plotEffectSd: 0.2, clumping: 0.03 })
      for (const group of surveyStatistics(plots).groups) {
        if (group.scope !== 'species_method' || !group.differs) continue
        const key = truthKey(group.speciesCode as string, group.plantingMethod as PlantingMethod)
        flagged.set(key, (flagged.get(key) ?? 0) + 1)
      }
    }
    const rate = (species: string, method: PlantingMethod) =>
      (flagged.get(truthKey(species, method)) ?? 0) / SURVEYS
    // 30 plots of 50–150 trees per cell: an offset of 0.7 moves survival by ~0.15 against a half-width of ~0.04.
    expect(rate('PSME', 'manual')).toBeGreaterThanOrEqual(0.99)
    expect(rate('TSHE', 'drone_seeded')).toBeGreaterThanOrEqual(0.99)
    const falseAlarms = (rate('PSME', 'drone_seeded') + rate('TSHE', 'manual')) / 2
    expect(falseAlarms).toBeGreaterThanOrEqual(0.05)
    expect(falseAlarms).toBeLessThanOrEqual(0.15)
  })

  it('says which way: below the prediction for a negative offset, above for a positive one', () => {
    const report = surveyStatistics(simulateSurveyFromSeed(9, design, { offsets, clumping: 0.03 }))
    const cell = (species: string, method: PlantingMethod) =>
      report.groups.find(
        (g) => g.scope === 'species_method' && g.speciesCode === species && g.plantingMethod === method,
      )
    expect(cell('PSME', 'manual')?.differenceInterval[1]).toBeLessThan(0)
    expect(cell('TSHE', 'drone_seeded')?.differenceInterval[0]).toBeGreaterThan(0)
  })
})

describe('plots of very different sizes (10 to 500 trees)', () => {
  // Clumping grows with plot size, 1 + (n − 1)ρ: one φ for every plot would let the large plots, which
  // carry most trees, look as steady as the small ones (that ran at 15 % false alarms and 84 % coverage).
  const design: SurveyDesign = {
    ...DESIGN,
    sites: [...sitesFor('PSME', 'manual'), ...sitesFor('TSHE', 'manual')],
    planted: { min: 10, max: 500 },
  }
  const SURVEYS = 400
  const random = createRandom(0x5_10_500)
  const reports = Array.from({ length: SURVEYS }, () =>
    surveyStatistics(simulateSurvey(random, design, { clumping: 0.03 })),
  )
  const share = (count: number, of: number) => count / of

  it('flags about 10 % of cells with no offset', () => {
    const cells = reports.flatMap((report) => report.groups.filter((g) => g.scope === 'species_method'))
    const rate = share(cells.filter((g) => g.differs).length, cells.length)
    expect(rate).toBeGreaterThanOrEqual(0.07)
    expect(rate).toBeLessThanOrEqual(0.135)
  })

  it('estimates the clumping it was given: ρ̂ near 0.03 on average', () => {
    const overall = reports.map((report) => report.groups[0]?.plotCorrelation as number)
    expect(moments(overall).mean).toBeGreaterThan(0.025)
    expect(moments(overall).mean).toBeLessThan(0.035)
  })

  it('covers the true shift (0) and slope (1) in about 90 % of surveys', () => {
    const shifts = reports.filter(
      ({ calibrationInTheLarge: { interval } }) => interval[0] <= 0 && interval[1] >= 0,
    )
    expect(share(shifts.length, SURVEYS)).toBeGreaterThanOrEqual(0.86)
    expect(share(shifts.length, SURVEYS)).toBeLessThanOrEqual(0.94)
    const slopes = reports.flatMap((report) => (report.calibrationSlope ? [report.calibrationSlope] : []))
    expect(slopes.length).toBe(SURVEYS)
    const covered = slopes.filter(({ slopeInterval }) => slopeInterval[0] <= 1 && slopeInterval[1] >= 1)
    expect(share(covered.length, SURVEYS)).toBeGreaterThanOrEqual(0.86)
    expect(share(covered.length, SURVEYS)).toBeLessThanOrEqual(0.94)
  })
})
