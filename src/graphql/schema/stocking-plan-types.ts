import { TREES_PER_HECTARE_PER_ACRE } from '../../domain/input-rules.ts'
import type { StockingRule } from '../../domain/stocking/standards.ts'
import type {
  HorizonOutcome,
  PlanPointSite,
  PlanStand,
  SpeciesOutcome,
  StockingPlan,
} from '../../domain/stocking/stocking-types.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum, SpeciesRef } from './catalogue.ts'
import { PlanCostRef } from './costs.ts'
import { ModelRef } from './models.ts'
import { reportLinkField } from './report-links.ts'
import { AppliedTreatmentsRef } from './treatments.ts'

export const StockingRuleRef = builder
  .objectRef<StockingRule & { targetTreesPerAcre: number; customTarget: boolean }>('StockingRule')
  .implement({
    description:
      'The reforestation standard a plan is judged against (an illustration, not a compliance determination)',
    fields: (t) => ({
      id: t.exposeString('id', { description: 'or_fpa, wa_fpa_west or wa_fpa_east' }),
      name: t.exposeString('name', { description: 'The rules’ name' }),
      citation: t.exposeString('citation', { description: 'The rules cited' }),
      minimumTreesPerAcre: t.exposeFloat('minimumTreesPerAcre', {
        description: 'The rule’s minimum, trees per acre',
      }),
      targetTreesPerAcre: t.exposeFloat('targetTreesPerAcre', {
        description: 'The target used: the minimum, or the custom target',
      }),
      customTarget: t.exposeBoolean('customTarget', {
        description: 'true when targetTreesPerAcre was asked for',
      }),
      horizonYears: t.exposeInt('horizonYears', {
        description: 'Growing seasons after planting at which the standard is judged',
      }),
      siteClass: t.exposeString('siteClass', {
        nullable: true,
        description: 'Oregon: the site class the minimum belongs to',
      }),
      hardwoodShareCap: t.exposeFloat('hardwoodShareCap', {
        nullable: true,
        description: 'At most this share of the target may be met by hardwoods; null: no cap',
      }),
      verify: t.exposeBoolean('verify', {
        description:
          'true: the minimum came from secondary summaries and must be checked against the rule text',
      }),
      status: t.exposeString('status', { description: 'Where the figure stands' }),
      sources: t.exposeStringList('sources', { description: 'Where the rule was read' }),
    }),
  })

const SpeciesOutcomeRef = builder.objectRef<SpeciesOutcome>('PlanSpeciesOutcome').implement({
  description: 'One species of the mix at one horizon',
  fields: (t) => ({
    species: t.field({ type: SpeciesRef, description: 'The species', resolve: (s) => s.species }),
    share: t.exposeFloat('share', { description: 'Share of the planted trees' }),
    plantedTreesPerAcre: t.exposeFloat('plantedTreesPerAcre', {
      description: 'Trees of this species planted per acre',
    }),
    survivalProbability: t.exposeFloat('survivalProbability', {
      description: 'Its survival, the mean over the sites evaluated',
    }),
    expectedTreesPerAcre: t.exposeFloat('expectedTreesPerAcre', {
      description: 'Its expected survivors per acre',
    }),
    countsInFull: t.exposeBoolean('countsInFull', {
      description: 'false: counts toward the standard only up to the hardwood cap',
    }),
  }),
})

const perHectare = (treesPerAcre: number) => Math.round(treesPerAcre * TREES_PER_HECTARE_PER_ACRE * 10) / 10

const HorizonOutcomeRef = builder.objectRef<HorizonOutcome>('PlanHorizon').implement({
  description: 'Surviving trees at one horizon, with the central interval at the plan’s confidence',
  fields: (t) => ({
    horizonYears: t.exposeInt('horizonYears', { description: 'Years after planting: 1, 3 or 5' }),
    survivalProbability: t.exposeFloat('survivalProbability', {
      description: 'The model’s survival for the mix here',
    }),
    expectedTreesPerAcre: t.exposeFloat('expectedTreesPerAcre', {
      description: 'Planted × survivalProbability',
    }),
    lower: t.exposeFloat('lower', { description: 'Lower end of the interval, trees per acre' }),
    upper: t.exposeFloat('upper', { description: 'Upper end of the interval, trees per acre' }),
    expectedTreesPerHectare: t.float({
      description: 'expectedTreesPerAcre per hectare',
      resolve: (h) => perHectare(h.expectedTreesPerAcre),
    }),
    bySpecies: t.field({
      type: [SpeciesOutcomeRef],
      description: 'Each species of the mix',
      resolve: (h) => h.bySpecies,
    }),
  }),
})

export const PlanSiteRef = builder.objectRef<PlanPointSite>('PlanSite').implement({
  description: 'A point plan’s matched data site',
  fields: (t) => ({
    latitude: t.exposeFloat('latitude', { description: 'Requested latitude' }),
    longitude: t.exposeFloat('longitude', { description: 'Requested longitude' }),
    siteId: t.exposeInt('siteId', { description: 'Id of the matched data point' }),
    matchedLatitude: t.exposeFloat('matchedLatitude', { description: 'Latitude of the data point' }),
    matchedLongitude: t.exposeFloat('matchedLongitude', { description: 'Longitude of the data point' }),
    matchDistanceKm: t.exposeFloat('matchDistanceKm', { description: 'Distance to it, km' }),
    zone: t.exposeString('zone', { description: 'Its ecological zone' }),
    state: t.exposeString('state', { nullable: true, description: 'OR or WA' }),
    siteClass: t.exposeString('siteClass', { description: 'Its modelled site class' }),
  }),
})

const StandSiteRef = builder.objectRef<PlanStand['sites'][number]>('StandSite').implement({
  description: 'A data site a stand was evaluated at',
  fields: (t) => ({
    siteId: t.exposeInt('siteId', { description: 'Id of the data point' }),
    latitude: t.exposeFloat('latitude', { description: 'Latitude' }),
    longitude: t.exposeFloat('longitude', { description: 'Longitude' }),
    zone: t.exposeString('zone', { description: 'Ecological zone' }),
    siteClass: t.exposeString('siteClass', { description: 'Modelled site class' }),
  }),
})

export const PlanStandRef = builder.objectRef<PlanStand>('PlanStand').implement({
  description: 'A stand plan’s area and the data sites it was evaluated at',
  fields: (t) => ({
    areaHa: t.exposeFloat('areaHa', { description: 'Area, hectares (geodesic)' }),
    centroidLatitude: t.float({ description: 'Latitude of its centre', resolve: (s) => s.centroid.latitude }),
    centroidLongitude: t.float({
      description: 'Longitude of its centre',
      resolve: (s) => s.centroid.longitude,
    }),
    sitesInside: t.exposeInt('sitesInside', { description: 'Data sites inside it' }),
    nearestSiteUsed: t.exposeBoolean('nearestSiteUsed', {
      description: 'true: none lies inside, the one nearest its centre stands for it',
    }),
    nearestSiteDistanceKm: t.exposeFloat('nearestSiteDistanceKm', {
      nullable: true,
      description: 'Km from its centre to that site',
    }),
    state: t.exposeString('state', { nullable: true, description: 'OR or WA (most of its sites)' }),
    siteClass: t.exposeString('siteClass', { description: 'The site class most of its sites have' }),
    sites: t.field({
      type: [StandSiteRef],
      description: 'The sites evaluated (at most 100 listed)',
      resolve: (s) => s.sites,
    }),
  }),
})

export const StockingPlanRef = builder.objectRef<StockingPlan>('StockingPlan').implement({
  description:
    'How likely a planted density is to meet a reforestation standard, and the density that would at the stated confidence (synthetic data: an illustration, not a compliance determination)',
  fields: (t) => ({
    rule: t.field({
      type: StockingRuleRef,
      description: 'The standard judged against',
      resolve: (p) => p.rule,
    }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      description: 'How the trees are established',
      resolve: (p) => p.plantingMethod as 'manual' | 'drone_seeded',
    }),
    plantedTreesPerAcre: t.float({
      description: 'Planted density, trees per acre',
      resolve: (p) => p.planted.treesPerAcre,
    }),
    plantedTreesPerHectare: t.float({
      description: 'Planted density, trees per hectare',
      resolve: (p) => p.planted.treesPerHectare,
    }),
    confidence: t.exposeFloat('confidence', { description: 'The confidence judged at' }),
    horizons: t.field({
      type: [HorizonOutcomeRef],
      description: 'Surviving trees at 1, 3 and 5 years',
      resolve: (p) => p.horizons,
    }),
    meetsProbability: t.float({
      description: 'Probability of meeting the target at the rule’s horizon',
      resolve: (p) => p.meetsStandard.probability,
    }),
    meetsAtConfidence: t.boolean({
      description: 'meetsProbability ≥ confidence',
      resolve: (p) => p.meetsStandard.atConfidence,
    }),
    requiredTreesPerAcre: t.float({
      nullable: true,
      description:
        'The smallest density meeting the target at the confidence; null when none up to 5,000 does',
      resolve: (p) => p.required.treesPerAcre,
    }),
    requiredTreesPerHectare: t.float({
      nullable: true,
      description: 'The same per hectare',
      resolve: (p) => p.required.treesPerHectare,
    }),
    overplantingFactor: t.float({
      nullable: true,
      description: 'requiredTreesPerAcre ÷ the target',
      resolve: (p) => p.required.overplantingFactor,
    }),
    site: t.field({
      type: PlanSiteRef,
      nullable: true,
      description: 'A point plan’s site; null for a stand',
      resolve: (p) => (p.location.kind === 'point' ? p.location : null),
    }),
    stand: t.field({
      type: PlanStandRef,
      nullable: true,
      description: 'A stand plan’s stand; null for a point',
      resolve: (p) => (p.location.kind === 'stand' ? p.location : null),
    }),
    dataVersion: t.string({
      nullable: true,
      description:
        'The site data version the plan’s sites came from (docs/site-data.md); null only before any version is active',
      resolve: (p) => p.dataVersion,
    }),
    climatePeriod: t.string({
      nullable: true,
      description: 'The future period planned for; null: today’s climate',
      resolve: (p) => p.climate?.period ?? null,
    }),
    climateScenario: t.string({
      nullable: true,
      description: 'Its emission scenario',
      resolve: (p) => p.climate?.scenario ?? null,
    }),
    treatments: t.field({
      type: AppliedTreatmentsRef,
      nullable: true,
      description:
        'The treatments planned with, their effects’ statuses and sources; their ranges widen the intervals. Null when untreated',
      resolve: (p) => p.treatments ?? null,
    }),
    cost: t.field({
      type: PlanCostRef,
      description:
        'What the plan costs: per acre planted and per tree established at the rule’s horizon, from the defaults of data/costs.json or the figures given (docs/costs.md)',
      resolve: (p) => p.cost,
    }),
    ninetyPercentHalfWidthShare: t.exposeFloat('ninetyPercentHalfWidthShare', {
      nullable: true,
      description:
        'For carbon use: half the 90 % interval of survivors at the rule’s horizon, as a share of the expected',
    }),
    notes: t.exposeStringList('notes', {
      description:
        'What the plan is and is not: synthetic data, survival only, values to verify, assumptions',
    }),
    model: t.field({ type: ModelRef, description: 'The model that answered', resolve: (p) => p.model }),
    generatedAt: t.field({
      type: 'DateTime',
      description: 'When the plan was made',
      resolve: (p) => p.generatedAt,
    }),
    reportLink: reportLinkField(t, 'stocking plan'),
  }),
})
