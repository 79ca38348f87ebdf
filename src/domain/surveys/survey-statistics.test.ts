import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  betaBinomialDraw,
  createRandom,
  type RandomSource,
  uniformInteger,
} from '../../seed/survey-simulation.ts'
import { logit, sigmoid } from '../../stats/logistic.ts'
import { PLANTING_METHODS } from '../../types.ts'
import {
  ageBand,
  calibrationInTheLarge,
  calibrationSlope as fitCalibrationSlope,
  groupStatistics,
  intervalQuantile,
  type PlotObservation,
  type SpeciesMethodColumns,
  surveyStatistics,
} from './survey-statistics.ts'

const T95_1 = 6.313752 // Student's t, 95th percentile, 1 df
const T95_2 = 2.919986 // 2 df
const Z95 = 1.6448536

const plot = (
  planted: number,
  alive: number,
  predicted: number,
  extra: Partial<PlotObservation> = {},
): PlotObservation => ({
  planted,
  alive,
  predicted,
  ageYears: 3,
  speciesCode: 'PSME',
  plantingMethod: 'manual',
  ...extra,
})

describe('survey statistics worked by hand', () => {
  // Plot 1: 8 of 10 alive; plot 2: 12 of 20; both predicted 0.6.
  const two = [plot(10, 8, 0.6), plot(20, 12, 0.6)]

  it('two plots: observed 2/3, Pearson φ = 1.2, ρ̂ = 1/70, the interval from t with 1 df', () => {
    // p̂ = 20/30; with one prediction the shifted model is p̂ on both plots. Pearson:
    // (8 − 6.667)²/(10·2/9) = 1.7778/2.2222 = 0.8; (12 − 13.333)²/(20·2/9) = 0.4; φ = max(1, 1.2/1) = 1.2.
    // ρ̂ = (φ − 1)·k/Σ(n − 1) = 0.2·2/28 = 1/70; Var(A) = (20/9)(1 + 9/70) + (40/9)(1 + 19/70) = 5140/630
    // = 8.158730 (φ Σ n q(1 − q) would be 8.0: the larger plot clumps more). SE = √8.158730/(30·2/9)
    // = 0.428452; half = 6.313752·0.428452 = 2.705142.
    // logit(2/3) = ln 2 = 0.693147 → expit(−2.011995) = 0.117949, expit(3.398289) = 0.967651.
    const group = groupStatistics(two)
    expect(group.plots).toBe(2)
    expect(group.planted).toBe(30)
    expect(group.alive).toBe(20)
    expect(group.observed).toBeCloseTo(2 / 3, 12)
    expect(group.dispersion).toBeCloseTo(1.2, 10)
    expect(group.plotCorrelation).toBeCloseTo(1 / 70, 12)
    expect(group.observedInterval[0]).toBeCloseTo(0.117949, 5)
    expect(group.observedInterval[1]).toBeCloseTo(0.967651, 5)
    expect(logit(group.observedInterval[1]) - Math.LN2).toBeCloseTo(T95_1 * 0.428452, 5)
    // Difference 2/3 − 0.6 = 1/15, its interval the observed one less 0.6.
    expect(group.meanPredicted).toBeCloseTo(0.6, 12)
    expect(group.difference).toBeCloseTo(1 / 15, 12)
    expect(group.differenceInterval[0]).toBeCloseTo(0.117949 - 0.6, 5)
    expect(group.differenceInterval[1]).toBeCloseTo(0.967651 - 0.6, 5)
    expect(group.differs).toBe(false)
  })

  it('two plots: calibration in the large shares the clumped Var(A), through dδ/dA = 1/Σ n q(1 − q)', () => {
    // δ = logit(2/3) − logit(0.6) = ln 2 − ln 1.5; Σ n q(1 − q) = 60/9; half = 6.313752·√(5140/630)/(60/9)
    // = 6.313752·0.428452 = 2.705142 (the logit half-width above: one prediction, one scale).
    const shift = calibrationInTheLarge(two)
    expect(shift.estimate).toBeCloseTo(Math.LN2 - Math.log(1.5), 10)
    expect(shift.interval[1] - shift.estimate).toBeCloseTo(2.705142, 5)
    expect(shift.estimate - shift.interval[0]).toBeCloseTo(2.705142, 5)
  })

  it('plots with different predictions scatter around the model, not around one share', () => {
    // 90 of 100 at 0.9 and 30 of 100 at 0.3: each plot shows its prediction, δ = 0 and φ = 1.
    // Around the common 0.6 Pearson would be (30²/24)·2 = 75 and the interval 0.0006–0.9998.
    // Σ n q(1 − q) = 9 + 21 = 30; half = 6.313752·√30/(200·0.24) = 0.720455 around logit 0.6 = 0.405465
    // → expit(−0.314990) = 0.421897, expit(1.125920) = 0.755085.
    const group = groupStatistics([plot(100, 90, 0.9), plot(100, 30, 0.3)])
    expect(group.dispersion).toBe(1)
    expect(group.observed).toBeCloseTo(0.6, 12)
    expect(group.observedInterval[0]).toBeCloseTo(0.421897, 5)
    expect(group.observedInterval[1]).toBeCloseTo(0.755085, 5)
  })

  it('Brier score and log loss, per tree', () => {
    // 8 of 10 alive predicted 0.7, 12 of 20 predicted 0.6. Brier: 8·0.3² + 2·0.7² = 1.70; 12·0.4² + 8·0.6² = 4.80; (1.70 + 4.80)/30 = 0.216667.
    // Log loss: −(8 ln 0.7 + 2 ln 0.3) = 5.261345; −(12 ln 0.6 + 8 ln 0.4) = 13.460233; 18.721578/30 = 0.624053.
    const report = surveyStatistics([plot(10, 8, 0.7), plot(20, 12, 0.6)])
    expect(report.brier).toBeCloseTo(0.216667, 6)
    expect(report.logLoss).toBeCloseTo(0.624053, 6)
  })

  // Three plots, all predicted 0.6: 8/10, 12/20, 21/30 alive, 41 of 60 in all.
  const three = [plot(10, 8, 0.6), plot(20, 12, 0.6), plot(30, 21, 0.6)]

  it('three plots with one prediction: δ = logit(41/60) − logit(0.6) in closed form, t with 2 df', () => {
    // δ = ln(41/19) − ln(3/2) = 0.363668. Pearson at q = 41/60: 0.629 + 0.642 + 0.039 = 1.309, /2 = 0.655
    // → φ = 1. SE = √(1/(60·(41/60)·(19/60))) = 0.277528; half = 2.919986·0.277528 = 0.810378.
    const shift = calibrationInTheLarge(three)
    expect(shift.estimate).toBeCloseTo(logit(41 / 60) - logit(0.6), 10)
    expect(shift.estimate).toBeCloseTo(0.363668, 6)
    expect(shift.dispersion).toBe(1)
    expect(shift.interval[1] - shift.estimate).toBeCloseTo(T95_2 * 0.277528, 5)
    expect(shift.interval[0]).toBeCloseTo(0.363668 - 0.810378, 5)
    expect(shift.interval[1]).toBeCloseTo(0.363668 + 0.810378, 5)
    // The observed interval is the same on the logit scale, around logit(41/60): 0.489690 to 0.829135.
    const group = groupStatistics(three)
    expect(group.observedInterval[0]).toBeCloseTo(0.48969, 5)
    expect(group.observedInterval[1]).toBeCloseTo(0.829135, 5)
  })

  it('recalibration slope 1 and intercept 0 when every plot shows exactly its prediction', () => {
    // a = n·p on plots at p = 0.1 … 0.9: the score equations hold at (α, β) = (0, 1), and Pearson is 0 → φ = 1.
    const exact = Array.from({ length: 9 }, (_, i) => plot(1000, 100 * (i + 1), (i + 1) / 10))
    const { calibrationSlope, calibrationInTheLarge: shift, notes } = surveyStatistics(exact)
    expect(calibrationSlope?.slope).toBeCloseTo(1, 9)
    expect(calibrationSlope?.intercept).toBeCloseTo(0, 9)
    expect(calibrationSlope?.dispersion).toBe(1)
    expect(shift.estimate).toBeCloseTo(0, 9)
    expect(notes).toEqual([])
  })

  it('recovers a stated recalibration, logit q = 0.3 + 0.7 logit p, from large plots', () => {
    const plots = Array.from({ length: 12 }, (_, i) => {
      const predicted = 0.2 + 0.06 * i
      return plot(100_000, Math.round(100_000 * sigmoid(0.3 + 0.7 * logit(predicted))), predicted)
    })
    const fit = surveyStatistics(plots).calibrationSlope
    expect(fit?.slope).toBeCloseTo(0.7, 3)
    expect(fit?.intercept).toBeCloseTo(0.3, 3)
    expect(fit?.slopeInterval[0]).toBeLessThan(0.7)
    expect(fit?.slopeInterval[1]).toBeGreaterThan(0.7)
  })

  it('every tree alive: p̃ = (N + ½)/(N + 1) for the width, and the interval ends at 1', () => {
    // N = 60, p̃ = 60.5/61 = 0.991803; SE = √(1/(60·p̃(1 − p̃))) → expit(logit p̃ − 2.919986·SE) = 0.649050.
    const group = groupStatistics([plot(10, 10, 0.6), plot(20, 20, 0.6), plot(30, 30, 0.6)])
    expect(group.observed).toBe(1)
    expect(group.dispersion).toBe(1)
    expect(group.observedInterval[1]).toBe(1)
    expect(group.observedInterval[0]).toBeCloseTo(0.64905, 5)
    const none = groupStatistics([plot(10, 0, 0.6), plot(20, 0, 0.6), plot(30, 0, 0.6)])
    expect(none.observedInterval[0]).toBe(0)
    expect(none.observedInterval[1]).toBeCloseTo(1 - 0.64905, 5)
    expect(none.differs).toBe(true)
    // The shift stays finite: it is fitted to N·p̃ alive instead of N.
    expect(Number.isFinite(calibrationInTheLarge([plot(10, 10, 0.6), plot(20, 20, 0.7)]).estimate)).toBe(true)
  })

  it('one plot: φ = 1 and the normal quantile; no slope; notes say why', () => {
    // 40 of 50: logit 0.8 ± 1.644854·√(1/(50·0.16)) → 0.690990 to 0.877379.
    const report = surveyStatistics([plot(50, 40, 0.5)])
    const overall = report.groups[0]
    expect(overall?.dispersion).toBe(1)
    expect(overall?.observedInterval[0]).toBeCloseTo(0.69099, 5)
    expect(overall?.observedInterval[1]).toBeCloseTo(0.877379, 5)
    expect(report.calibrationInTheLarge.interval[1] - report.calibrationInTheLarge.estimate).toBeCloseTo(
      Z95 * Math.sqrt(1 / 8),
      5,
    )
    expect(overall?.differs).toBe(true)
    expect(report.calibrationSlope).toBeNull()
    expect(report.notes.join(' ')).toMatch(/at least 3 plots/)
    expect(report.notes.join(' ')).toMatch(/one plot/)
  })

  it('no slope when every plot has the same prediction', () => {
    const report = surveyStatistics(three)
    expect(report.calibrationSlope).toBeNull()
    expect(report.notes[0]).toMatch(/same prediction/)
    expect(surveyStatistics(two).notes[0]).toMatch(/at least 3 plots/)
  })

  it('groups by species × method and age band, in a fixed order, with an overall row first', () => {
    const plots = [
      plot(10, 5, 0.5, { speciesCode: 'TSHE', ageYears: 1.99 }),
      plot(10, 6, 0.5, { speciesCode: 'PSME', plantingMethod: 'drone_seeded', ageYears: 2 }),
      plot(10, 7, 0.5, { speciesCode: 'PSME', ageYears: 4 }),
      plot(10, 8, 0.5, { speciesCode: 'PSME', ageYears: 4.01 }),
    ]
    const rows = surveyStatistics(plots).groups.map((g) => [
      g.scope,
      g.speciesCode,
      g.plantingMethod,
      g.ageBand,
      g.alive,
    ])
    expect(rows).toEqual([
      ['overall', null, null, null, 26],
      ['species_method', 'PSME', 'manual', null, 15],
      ['age_band', 'PSME', 'manual', '2_to_4', 7],
      ['age_band', 'PSME', 'manual', 'over_4', 8],
      ['species_method', 'PSME', 'drone_seeded', null, 6],
      ['age_band', 'PSME', 'drone_seeded', '2_to_4', 6],
      ['species_method', 'TSHE', 'manual', null, 5],
      ['age_band', 'TSHE', 'manual', 'under_2', 5],
    ])
    expect([1.999, 2, 4, 4.001].map(ageBand)).toEqual(['under_2', '2_to_4', '2_to_4', 'over_4'])
  })

  it('reliability: ten bins closed on the left, the last closed on both ends; empty bins are null', () => {
    const plots = [
      plot(10, 1, 0.05),
      plot(10, 2, 0.1),
      plot(30, 3, 0.15),
      plot(10, 9, 0.95),
      plot(10, 10, 0.999999),
    ]
    const bins = surveyStatistics(plots).reliability
    expect(bins.map((b) => b.plots)).toEqual([1, 2, 0, 0, 0, 0, 0, 0, 0, 2])
    // Bin 0.1–0.2: plots at 0.1 (10 trees) and 0.15 (30 trees): mean predicted (1 + 4.5)/40 = 0.1375; 5/40 alive.
    expect(bins[1]).toMatchObject({ from: 0.1, to: 0.2, plots: 2, trees: 40, alive: 5, observed: 0.125 })
    expect(bins[1]?.meanPredicted).toBeCloseTo(0.1375, 12)
    expect(bins[2]).toEqual({
      from: 0.2,
      to: 0.3,
      plots: 0,
      trees: 0,
      alive: 0,
      meanPredicted: null,
      observed: null,
    })
    expect(bins[9]?.to).toBe(1)
  })

  it.each([
    [plot(0, 0, 0.5), /planted/],
    [plot(10, 11, 0.5), /alive/],
    [plot(10, 2.5, 0.5), /alive/],
    [plot(10, 5, 1), /predicted/],
    [plot(10, 5, 0.5, { ageYears: 0 }), /age/],
  ])('refuses an impossible plot with a RangeError', (bad, message) => {
    expect(() => surveyStatistics([plot(10, 5, 0.5), bad])).toThrow(message)
    expect(() => surveyStatistics([plot(10, 5, 0.5), bad])).toThrow(RangeError)
  })

  it('refuses an empty survey', () => {
    expect(() => surveyStatistics([])).toThrow(RangeError)
  })

  it('refuses impossible plots and ragged columns given as columns, naming the plot', () => {
    const [cell] = asColumns([plot(10, 5, 0.5), plot(10, 11, 0.5)]) as [SpeciesMethodColumns]
    expect(() => surveyStatistics([cell])).toThrow(/plot 1: alive/)
    expect(() => surveyStatistics([{ ...cell, alive: Int32Array.of(5) }])).toThrow(RangeError)
    expect(() =>
      surveyStatistics([{ ...cell, planted: [], alive: [], predicted: [], ageYears: [] }]),
    ).toThrow(/at least one plot/)
  })
})

const plotArbitrary = fc
  .record({
    planted: fc.integer({ min: 1, max: 300 }),
    aliveShare: fc.oneof(fc.constant(0), fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
    predicted: fc.double({ min: 0.005, max: 0.995, noNaN: true }),
    ageYears: fc.double({ min: 0.25, max: 10, noNaN: true }),
    speciesCode: fc.constantFrom('PSME', 'TSHE', 'PIPO'),
    plantingMethod: fc.constantFrom(...PLANTING_METHODS),
  })
  .map(
    ({ aliveShare, ...rest }): PlotObservation => ({ ...rest, alive: Math.round(aliveShare * rest.planted) }),
  )
const surveyArbitrary = fc.array(plotArbitrary, { minLength: 1, maxLength: 30 })

/** The plots as a store reads them: typed columns per species × method, in the order given. */
function asColumns(plots: readonly PlotObservation[]): SpeciesMethodColumns[] {
  const cells = new Map<string, PlotObservation[]>()
  for (const p of plots) {
    const key = `${p.speciesCode} ${p.plantingMethod}`
    cells.set(key, [...(cells.get(key) ?? []), p])
  }
  return [...cells.values()].map((cell) => ({
    speciesCode: (cell[0] as PlotObservation).speciesCode,
    plantingMethod: (cell[0] as PlotObservation).plantingMethod,
    planted: Int32Array.from(cell, (p) => p.planted),
    alive: Int32Array.from(cell, (p) => p.alive),
    predicted: Float64Array.from(cell, (p) => p.predicted),
    ageYears: Float64Array.from(cell, (p) => p.ageYears),
  }))
}

describe('survey statistics, properties', () => {
  it('are the same numbers whatever the order of the plots', () => {
    const permuted = surveyArbitrary.chain((plots) =>
      fc.tuple(
        fc.constant(plots),
        fc.shuffledSubarray(plots, { minLength: plots.length, maxLength: plots.length }),
      ),
    )
    fc.assert(
      fc.property(permuted, ([plots, shuffled]) => {
        expect(surveyStatistics(shuffled)).toEqual(surveyStatistics(plots))
      }),
    )
  })

  it('are the same numbers read as columns per species × method, as a store gives them', () => {
    fc.assert(
      fc.property(surveyArbitrary, (plots) => {
        expect(surveyStatistics(asColumns(plots))).toEqual(surveyStatistics(plots))
      }),
    )
  })

  it('are the same numbers when one species × method comes in parts', () => {
    fc.assert(
      fc.property(surveyArbitrary, fc.nat(), (plots, cut) => {
        const at = cut % (plots.length + 1)
        const parts = [...asColumns(plots.slice(0, at)), ...asColumns(plots.slice(at))]
        expect(surveyStatistics(parts)).toEqual(surveyStatistics(plots))
      }),
    )
  })

  it('count every plot, tree and survivor once at each level', () => {
    fc.assert(
      fc.property(surveyArbitrary, (plots) => {
        const { groups, reliability } = surveyStatistics(plots)
        const [overall, ...rest] = groups
        const counts = ({ plots, planted, alive }: { plots: number; planted: number; alive: number }) => ({
          plots,
          planted,
          alive,
        })
        const add = (rows: typeof groups) =>
          rows.reduce(
            (sum, g) => ({
              plots: sum.plots + g.plots,
              planted: sum.planted + g.planted,
              alive: sum.alive + g.alive,
            }),
            { plots: 0, planted: 0, alive: 0 },
          )
        const cells = rest.filter((g) => g.scope === 'species_method')
        expect(add(cells)).toEqual(counts(overall as (typeof groups)[number]))
        for (const cell of cells) {
          const bands = rest.filter(
            (g) =>
              g.scope === 'age_band' &&
              g.speciesCode === cell.speciesCode &&
              g.plantingMethod === cell.plantingMethod,
          )
          expect(add(bands)).toEqual(counts(cell))
        }
        expect(reliability.reduce((sum, bin) => sum + bin.trees, 0)).toBe(overall?.planted)
      }),
    )
  })

  it('with plots of one size, are the textbook quasi-binomial intervals (φ for every plot)', () => {
    const oneSize = fc
      .tuple(fc.integer({ min: 2, max: 300 }), fc.array(plotArbitrary, { minLength: 2, maxLength: 30 }))
      .map(([size, plots]) =>
        plots.map((p) => ({ ...p, planted: size, alive: Math.round((p.alive / p.planted) * size) })),
      )
    const relative = (actual: number, expected: number) =>
      expect(Math.abs(actual / expected - 1)).toBeLessThan(1e-9)
    fc.assert(
      fc.property(oneSize, (plots) => {
        // With equal n, 1 + (n − 1)ρ̂ = φ on every plot, so Var(A) = φ Σ n q(1 − q).
        const t = intervalQuantile(plots.length - 1)
        const shift = calibrationInTheLarge(plots)
        const information = plots.reduce((sum, p) => {
          const q = sigmoid(logit(p.predicted) + shift.estimate)
          return sum + p.planted * q * (1 - q)
        }, 0)
        relative(shift.interval[1] - shift.estimate, t * Math.sqrt(shift.dispersion / information))
        const group = groupStatistics(plots)
        // Ends within 10⁻⁶ of 1 keep too few digits to take their logit back.
        if (group.alive === group.planted || group.observedInterval[1] > 1 - 1e-6) return
        const share = group.alive === 0 ? 0.5 / (group.planted + 1) : group.observed
        const logitHalf =
          (t * Math.sqrt(group.dispersion * information)) / (group.planted * share * (1 - share))
        relative(logit(group.observedInterval[1]) - logit(share), logitHalf)
      }),
    )
  })

  it('hold each point estimate inside its interval; Brier in [0, 1], log loss ≥ 0', () => {
    fc.assert(
      fc.property(surveyArbitrary, (plots) => {
        const report = surveyStatistics(plots)
        for (const g of report.groups) {
          expect(g.observedInterval[0]).toBeLessThanOrEqual(g.observed)
          expect(g.observedInterval[1]).toBeGreaterThanOrEqual(g.observed)
          expect(g.observedInterval[0]).toBeGreaterThanOrEqual(0)
          expect(g.observedInterval[1]).toBeLessThanOrEqual(1)
          expect(g.differenceInterval[0]).toBeLessThanOrEqual(g.difference)
          expect(g.differenceInterval[1]).toBeGreaterThanOrEqual(g.difference)
          expect(g.dispersion).toBeGreaterThanOrEqual(1)
        }
        const { estimate, interval } = report.calibrationInTheLarge
        expect(interval[0]).toBeLessThanOrEqual(estimate)
        expect(interval[1]).toBeGreaterThanOrEqual(estimate)
        const slope = report.calibrationSlope
        if (slope) {
          expect(slope.slopeInterval[0]).toBeLessThanOrEqual(slope.slope)
          expect(slope.slopeInterval[1]).toBeGreaterThanOrEqual(slope.slope)
        } else expect(report.notes.some((note) => note.startsWith('Calibration slope'))).toBe(true)
        expect(report.brier).toBeGreaterThanOrEqual(0)
        expect(report.brier).toBeLessThanOrEqual(1)
        expect(report.logLoss).toBeGreaterThanOrEqual(0)
      }),
    )
  })
})

/** Plots of 40–120 trees with beta-binomial counts: intra-plot correlation 0.05, φ ≈ 1 + 79·0.05 ≈ 5. */
const CLUMPING = 0.05
const DATASETS = 1000
const TRUE_OFFSET = -0.4

/** Plots whose true survival is the prediction shifted by `offset` on the logit scale. */
function clumpedPlots(random: RandomSource, count: number, predictedOf: () => number, offset: number) {
  return Array.from({ length: count }, () => {
    const planted = uniformInteger(random, 40, 120)
    const predicted = predictedOf()
    const truth = sigmoid(logit(predicted) + offset)
    return { plot: plot(planted, betaBinomialDraw(random, planted, truth, CLUMPING), predicted), truth }
  })
}

/** Share of 1,000 simulated surveys whose interval holds the truth. */
function coverage(seed: number, holdsTruth: (random: RandomSource) => boolean): number {
  const random = createRandom(seed)
  let covered = 0
  for (let dataset = 0; dataset < DATASETS; dataset++) if (holdsTruth(random)) covered++
  return covered / DATASETS
}

const holds = ([low, high]: readonly [number, number], truth: number) => low <= truth && truth <= high
/** One true survival, 0.7, on every plot; the model says 0.6 everywhere. */
const sameTruth = (count: number) => (random: RandomSource) =>
  holds(
    groupStatistics(clumpedPlots(random, count, () => 0.6, logit(0.7) - logit(0.6)).map((p) => p.plot))
      .observedInterval,
    0.7,
  )
/** Predictions from 0.38 to 0.82, truth 0.4 below each on the logit scale: the target is Σ n·truth / N. */
const spreadPrediction = (random: RandomSource) => () => sigmoid(-0.5 + 2 * random())

describe('survey statistics, coverage over 1,000 simulated surveys (seeded)', () => {
  it('the observed 90 % interval holds the true survival in 87–93 % of surveys of 30 plots', () => {
    const share = coverage(30, sameTruth(30))
    expect(share).toBeGreaterThanOrEqual(0.87)
    expect(share).toBeLessThanOrEqual(0.93)
  })

  it('and in 87–93 % of surveys of 8 plots (t with 7 df: the normal would fall well short)', () => {
    const share = coverage(8, sameTruth(8))
    expect(share).toBeGreaterThanOrEqual(0.87)
    expect(share).toBeLessThanOrEqual(0.93)
  })

  it('and in 87–93 % when every plot has its own prediction and truth', () => {
    const share = coverage(0x5bd, (random) => {
      const plots = clumpedPlots(random, 30, spreadPrediction(random), TRUE_OFFSET)
      const trees = plots.reduce((sum, p) => sum + p.plot.planted, 0)
      const truth = plots.reduce((sum, p) => sum + p.plot.planted * p.truth, 0) / trees
      return holds(groupStatistics(plots.map((p) => p.plot)).observedInterval, truth)
    })
    expect(share).toBeGreaterThanOrEqual(0.87)
    expect(share).toBeLessThanOrEqual(0.93)
  })

  it('the calibration-in-the-large interval holds the true offset in 86–94 % of surveys of 30 plots', () => {
    const share = coverage(0xc17, (random) => {
      const plots = clumpedPlots(random, 30, spreadPrediction(random), TRUE_OFFSET).map((p) => p.plot)
      return holds(calibrationInTheLarge(plots).interval, TRUE_OFFSET)
    })
    expect(share).toBeGreaterThanOrEqual(0.86)
    expect(share).toBeLessThanOrEqual(0.94)
  })
})

describe('the calibration slope on ordinary data far from calibration', () => {
  it('converges where a full Newton step from (0, 1) overshoots: 40 plots, 20–44 of 50 alive, predicted 0.01–0.99', () => {
    const plots = Array.from({ length: 40 }, (_, i) => ({
      planted: 50,
      alive: 20 + ((i * 7) % 25),
      predicted: 0.01 + 0.98 * (i / 39),
      ageYears: 3,
      speciesCode: 'PSME',
      plantingMethod: 'manual' as const,
    }))
    const fit = fitCalibrationSlope(plots).fit
    expect(fit).not.toBeNull()
    // Survival here barely follows the prediction: the slope is near 0, not 1.
    expect(Math.abs(fit?.slope as number)).toBeLessThan(0.3)
    expect((fit?.slopeInterval[0] as number) <= (fit?.slope as number)).toBe(true)
  })
})
