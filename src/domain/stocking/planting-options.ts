import type { HorizonPrediction, ModelInfo, Site, Species, SurvivalModel } from '../../types.ts'
import { modelInfo } from '../catalogue.ts'
import { CLIMATE_FUTURES, type EmissionScenario, type FuturePeriod } from '../climate.ts'
import { TREES_PER_HECTARE_PER_ACRE } from '../input-rules.ts'
import { asAppliedBy } from '../treatment-shares.ts'
import type { AppliedEffect, EvidenceStatus } from '../treatment-types.ts'
import type { TreatmentName } from '../treatment-values.ts'
import { COSTS, type CostStatus, leastCertain, type PlanCost } from './costs.ts'
import { mixDistributions, type SpeciesPredictions } from './mix-survival.ts'
import type { Candidate, CheckedOptionsRequest } from './options-request.ts'
import type { CheckedShare } from './plan-request.ts'
import { planCost } from './planting-cost.ts'
import type { StockingRule } from './standards.ts'
import {
  meetsProbability,
  requiredDensity,
  round,
  type SurvivalDistribution,
  survivorsInterval,
} from './stocking-math.ts'
import type { PlanPointSite, PlanStand } from './stocking-types.ts'

/*
 * The cheapest ways to meet the standard (docs/costs.md#options): every candidate (a mix, a method, the
 * treatments) at the smallest density meeting the standard at the confidence, ranked by cost per acre.
 * Cost per acre rises with the density and the probability of meeting the standard does too, so a
 * candidate's cheapest meeting density is that smallest one: a bisection finds it exactly, with no grid.
 * Per-site work is shared: the sites are looked up and projected once, and each species' predictions
 * under a method and treatments are made once for every mix that holds the species.
 */

/** One way to plant at the density it is judged at. */
export interface PlantingOption {
  mixIndex: number
  mix: readonly CheckedShare[]
  method: string
  /** Every treatment's value (null: not named). */
  treatments: Readonly<Record<TreatmentName, string | null>>
  treesPerAcre: number
  treesPerHectare: number
  /** Probability of meeting the standard at this density. */
  probability: number
  meetsConfidence: boolean
  /** The mix's survival at the rule's horizon (the model's own answer) and the expected survivors. */
  survivalProbability: number
  expectedTreesPerAcre: number
  /** Central interval of survivors at the confidence, trees per acre. */
  lower: number
  upper: number
  cost: PlanCost
  /** Each treatment with an effect, and the status of that effect for this method. */
  treatmentEffects: {
    treatment: TreatmentName
    value: string
    effectId: string
    shareFrom: AppliedEffect['shareFrom']
    status: EvidenceStatus
  }[]
  /** The least certain status behind the option: its costs, its treatments' effects, the rule's figure. */
  leastCertainStatus: CostStatus
}

/** The cheapest option that fails the confidence: at the density ceiling, or the density it stops at. */
export interface FailingOption extends PlantingOption {
  /** confidence − probability: how far short it falls. */
  shortfall: number
}

export interface PlantingOptions {
  rule: StockingRule & { targetTreesPerAcre: number; customTarget: boolean }
  confidence: number
  maxTreesPerAcre: number
  /** Candidates weighed (mixes × methods × treatment combinations). */
  candidates: number
  /** Those that meet the standard at the confidence, cheapest first. */
  options: PlantingOption[]
  /** The cheapest candidate that does not, at the density ceiling; null when every candidate meets it. */
  cheapestFailing: FailingOption | null
  location: PlanPointSite | PlanStand
  dataVersion: string | null
  climate: { period: FuturePeriod; scenario: EmissionScenario; dataVersion: string } | null
  costsDataVersion: string
  treatmentsDataVersion: string
  notes: string[]
  model: ModelInfo
  generatedAt: Date
}

export interface OptionsSearch {
  asked: CheckedOptionsRequest
  /** The sites evaluated (projected already when a climate is asked). */
  sites: readonly Site[]
  location: PlanPointSite | PlanStand
  dataVersion: string | null
  rule: StockingRule
  model: SurvivalModel
  treatmentsDataVersion: string
  now: Date
}

/** The standard's minimum: read from the rule (published), or from secondary summaries to verify (synthesis). */
const STATUS_OF_RULE = (rule: StockingRule): EvidenceStatus => (rule.verify ? 'synthesis' : 'published')

/** Ranks meeting options: cost per acre, then the higher probability, then the search's order. */
function byCost(a: PlantingOption & { order: number }, b: PlantingOption & { order: number }): number {
  return a.cost.perAcre - b.cost.perAcre || b.probability - a.probability || a.order - b.order
}

/** Every candidate at its smallest meeting density (or the ceiling), the meeting ones ranked by cost. */
export function plantingOptions(search: OptionsSearch): PlantingOptions {
  const { asked, sites, rule, model } = search
  const horizon = rule.horizonYears
  const target = rule.minimumTreesPerAcre
  const cap = rule.hardwoodShareCap === null ? null : rule.hardwoodShareCap * target
  const { confidence, maxTreesPerAcre } = asked
  const ruleStatus = STATUS_OF_RULE(rule)

  // One species' predictions under one method and treatments, made once for every mix holding it.
  const cache = new Map<string, readonly (readonly HorizonPrediction[])[]>()
  const predictionsFor = (candidate: Candidate): SpeciesPredictions => {
    const key = `${candidate.method}|${TREATMENT_KEY(candidate.values)}`
    const effects = candidate.treatments?.modelEffects
    return (species: Species) => {
      const speciesKey = `${key}|${species.code}`
      let atSites = cache.get(speciesKey)
      if (!atSites) {
        atSites = sites.map((site) => model.predict(site, species, candidate.method, [horizon], effects))
        cache.set(speciesKey, atSites)
      }
      return atSites
    }
  }

  const meeting: (PlantingOption & { order: number })[] = []
  let failing: (FailingOption & { order: number }) | null = null
  for (const candidate of asked.candidates) {
    const at = mixDistributions(
      sites.length,
      candidate.mix,
      rule,
      model,
      [horizon],
      predictionsFor(candidate),
    )[horizon]
    const required = requiredDensity(at.distribution, target, cap, confidence, maxTreesPerAcre)
    const density = required ?? maxTreesPerAcre
    const option = optionAt(
      candidate,
      asAppliedBy(model, candidate.treatments)?.effects ?? [],
      at.distribution,
      density,
      { rule, target, cap, confidence, ruleStatus },
      asked,
    )
    if (required !== null) meeting.push(option)
    else {
      const shortfall = round(confidence - option.probability, 4)
      const failed = { ...option, shortfall }
      if (failing === null || byCost(failed, failing) < 0) failing = failed
    }
  }
  meeting.sort(byCost)
  const strip = <T extends { order: number }>({ order: _order, ...option }: T) => option
  return {
    rule: { ...rule, targetTreesPerAcre: target, customTarget: false },
    confidence,
    maxTreesPerAcre,
    candidates: asked.candidates.length,
    options: meeting.map(strip),
    cheapestFailing: failing === null ? null : strip(failing),
    location: search.location,
    dataVersion: search.dataVersion,
    climate: asked.climate ? { ...asked.climate, dataVersion: CLIMATE_FUTURES.dataVersion } : null,
    costsDataVersion: COSTS.dataVersion,
    treatmentsDataVersion: search.treatmentsDataVersion,
    notes: optionNotes(meeting, failing, asked),
    model: modelInfo(model),
    generatedAt: search.now,
  }
}

const TREATMENT_KEY = (values: Readonly<Record<TreatmentName, string | null>>) =>
  `${values.vegetation_control}|${values.animal_protection}|${values.stock_type}|${values.shade}`

function optionAt(
  candidate: Candidate,
  /** The candidate's effects as the model applies them (asAppliedBy). */
  effects: readonly AppliedEffect[],
  distribution: SurvivalDistribution,
  density: number,
  standard: {
    rule: StockingRule
    target: number
    cap: number | null
    confidence: number
    ruleStatus: EvidenceStatus
  },
  asked: CheckedOptionsRequest,
): PlantingOption & { order: number } {
  const { rule, target, cap, confidence, ruleStatus } = standard
  const probability = meetsProbability(distribution, density, target, cap)
  const { lower, upper } = survivorsInterval(distribution, density, confidence)
  const cost = planCost(
    { mix: candidate.mix, method: candidate.method, treatments: candidate.values, planted: density },
    asked.costs,
    {
      horizonYears: rule.horizonYears,
      survival: distribution.pointSurvival,
      lower,
      upper,
      level: confidence,
    },
    COSTS.dataVersion,
  )
  const treatmentEffects = effects.map((e) => ({
    treatment: e.treatment,
    value: e.value,
    effectId: e.effectId,
    shareFrom: e.shareFrom,
    status: e.status,
  }))
  return {
    order: candidate.order,
    mixIndex: candidate.mixIndex,
    mix: candidate.mix,
    method: candidate.method,
    treatments: candidate.values,
    treesPerAcre: density,
    treesPerHectare: Math.ceil(density * TREES_PER_HECTARE_PER_ACRE),
    probability,
    meetsConfidence: probability >= confidence,
    survivalProbability: distribution.pointSurvival,
    expectedTreesPerAcre: round(density * distribution.pointSurvival, 1),
    lower,
    upper,
    cost,
    treatmentEffects,
    leastCertainStatus: leastCertain([
      cost.leastCertainStatus,
      ruleStatus,
      ...treatmentEffects.map((e) => e.status),
    ]),
  }
}

function optionNotes(
  meeting: readonly PlantingOption[],
  failing: FailingOption | null,
  asked: CheckedOptionsRequest,
): string[] {
  const notes = [
    'Synthetic data and a transparent parametric model: an illustration of the trade-offs, not a quote or a compliance determination.',
    'Every cost, every treatment effect and the standard carry their status: published (taken from a cited source), synthesis (combined or inferred) or assumption (a placeholder with no source). An assumption is not a finding; the least certain status of each option is in least_certain_status.',
    'Cost per acre covers what is priced (docs/costs.md): seedlings or seed pods, planting or the drone flight, site preparation, releases, tubes and shade cards. Surveys are not priced; a stock type changes no price (no difference was found).',
  ]
  const assumed = new Set<string>()
  for (const option of [...meeting, ...(failing ? [failing] : [])]) {
    for (const part of option.cost.parts) if (part.status === 'assumption') assumed.add(part.item)
  }
  if (assumed.size > 0)
    notes.push(
      `Placeholders with no source price these items: ${[...assumed].sort().join(', ')}. Give your own figures in costs to replace them.`,
    )
  if (asked.methods.includes('drone_seeded'))
    notes.push(
      'Drone seeding: no published drone-seeding price and no Oregon or Washington establishment figure exist; its density counts seed pods, and its flight and pod costs are assumptions.',
    )
  if (meeting.length === 0)
    notes.push(
      `No candidate meets the standard at the confidence up to ${asked.maxTreesPerAcre} trees per acre: cheapest_failing says how far the cheapest falls short.`,
    )
  return notes
}
