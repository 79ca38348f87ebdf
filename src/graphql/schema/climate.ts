import {
  CLIMATE_DATA_NOTE,
  type ClimateCatalogueView,
  type ClimateDeltas,
  type ClimateProjection,
  type ProjectedAttributes,
  type ZoneDeltas,
} from '../../domain/climate.ts'
import type { FactorChange, HorizonChange } from '../../domain/prediction-types.ts'
import { builder } from './builder.ts'

/** The climate a prediction is made for, and what a future one does to a site. */

export const ClimateInput = builder.inputType('ClimateInput', {
  description:
    'A climate to predict for, with the Seedlot Selection Tool’s identifiers: a future period (2011-2040, 2041-2070, 2071-2100) with an emission scenario (ssp245, ssp370, ssp585). Absent, null, or period 1991_2020 alone: today’s climate, exactly as without it. Any other combination is invalid_climate (422); climateScenarios lists the values',
  fields: (t) => ({
    period: t.string({ required: false, description: 'e.g. 2041-2070; 1991_2020 is today’s climate' }),
    scenario: t.string({ required: false, description: 'ssp245, ssp370 or ssp585; none with 1991_2020' }),
  }),
})

const DELTA_FIELDS = {
  meanAnnualTemperatureC: 'Change of mean annual temperature, °C',
  summerMaxTemperatureC: 'Change of the mean summer (JJA) daily maximum temperature, °C',
  annualPrecipitationPct: 'Change of annual precipitation, percent of the site’s',
  summerPrecipitationPct: 'Change of summer (JJA) precipitation, percent',
  waterDeficitMm: 'Summer water deficit added to the site’s, mm',
} as const

const ClimateDeltasRef = builder.objectRef<ClimateDeltas>('ClimateDeltas').implement({
  description:
    'Change of a site’s climate against 1991–2020, after its zone’s adjustment (a rounded synthesis)',
  fields: (t) => ({
    meanAnnualTemperatureC: t.exposeFloat('meanAnnualTemperatureC', {
      description: DELTA_FIELDS.meanAnnualTemperatureC,
    }),
    summerMaxTemperatureC: t.exposeFloat('summerMaxTemperatureC', {
      description: DELTA_FIELDS.summerMaxTemperatureC,
    }),
    annualPrecipitationPct: t.exposeFloat('annualPrecipitationPct', {
      description: DELTA_FIELDS.annualPrecipitationPct,
    }),
    summerPrecipitationPct: t.exposeFloat('summerPrecipitationPct', {
      description: DELTA_FIELDS.summerPrecipitationPct,
    }),
    waterDeficitMm: t.exposeFloat('waterDeficitMm', { description: DELTA_FIELDS.waterDeficitMm }),
  }),
})

const ProjectedAttributesRef = builder.objectRef<ProjectedAttributes>('ProjectedSiteAttributes').implement({
  description: 'The attributes the model evaluated at the site under the future climate',
  fields: (t) => ({
    annualPrecipMm: t.exposeFloat('annualPrecipMm', { description: 'Annual precipitation, mm' }),
    summerWaterDeficitMm: t.exposeFloat('summerWaterDeficitMm', { description: 'Summer water deficit, mm' }),
    growingSeasonFrostDays: t.exposeFloat('growingSeasonFrostDays', {
      description: 'Growing-season frost days (fewer as it warms: an assumption, see the model card)',
    }),
    thermalElevationM: t.exposeFloat('thermalElevationM', {
      description:
        'The elevation whose climate today matches the site’s future one (warming over the 6.5 °C/km lapse rate): what the elevation-range factor reads',
    }),
  }),
})

export const ClimateProjectionRef = builder.objectRef<ClimateProjection>('ClimateProjection').implement({
  description:
    'What a future climate did to the matched site: the deltas applied there and the attributes evaluated. The values are a rounded synthesis for synthetic sites, not for real planting decisions',
  fields: (t) => ({
    period: t.exposeString('period', { description: 'The future period, e.g. 2041-2070' }),
    scenario: t.exposeString('scenario', { description: 'The emission scenario, e.g. ssp245' }),
    dataVersion: t.exposeString('dataVersion', {
      description: 'Version of the climate data (a hash of the file)',
    }),
    note: t.string({
      description: 'What the values are, and what they are not for',
      resolve: () => CLIMATE_DATA_NOTE,
    }),
    deltas: t.field({
      type: ClimateDeltasRef,
      description: 'The deltas applied at this site',
      resolve: (c) => c.deltas,
    }),
    projected: t.field({
      type: ProjectedAttributesRef,
      description: 'The attributes the model evaluated',
      resolve: (c) => c.projected,
    }),
  }),
})

const FactorChangeRef = builder.objectRef<FactorChange>('FactorChange').implement({
  description: 'One factor under the future climate against the same factor under today’s, log-odds',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Stable factor id, as in RiskFactor.key' }),
    factor: t.exposeString('factor', { description: 'Human-readable factor name' }),
    contribution: t.exposeFloat('contribution', { description: 'Contribution under the future climate' }),
    todayContribution: t.exposeFloat('todayContribution', {
      description: 'Contribution under today’s climate',
    }),
    change: t.exposeFloat('change', {
      description:
        'contribution − todayContribution: negative when the future costs survival through this factor',
    }),
  }),
})

export const HorizonChangeRef = builder.objectRef<HorizonChange>('HorizonChange').implement({
  description: 'One horizon under the future climate against today’s climate at the same site',
  fields: (t) => ({
    horizonYears: t.exposeInt('horizonYears', { description: 'Years after planting: 1, 3 or 5' }),
    survivalProbability: t.exposeFloat('survivalProbability', {
      description: 'Survival under the future climate',
    }),
    todaySurvivalProbability: t.exposeFloat('todaySurvivalProbability', {
      description: 'Survival under today’s climate',
    }),
    change: t.exposeFloat('change', { description: 'survivalProbability − todaySurvivalProbability' }),
    factors: t.field({
      type: [FactorChangeRef],
      description: 'Every factor, by the size of its change, largest first (ties by key)',
      resolve: (h) => h.factors,
    }),
  }),
})

const ClimateScenarioRef = builder.objectRef<{ id: string; name: string }>('ClimateScenario').implement({
  description: 'An emission scenario',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Identifier to pass as ClimateInput.scenario, e.g. ssp245' }),
    name: t.exposeString('name', { description: 'Usual name, e.g. SSP2-4.5' }),
  }),
})

const ZoneDeltasRef = builder.objectRef<ZoneDeltas>('ZoneClimateDeltas').implement({
  description: 'The deltas of one future period and scenario in one forest zone',
  fields: (t) => ({
    period: t.exposeString('period', { description: 'Future period' }),
    scenario: t.exposeString('scenario', { description: 'Emission scenario' }),
    zone: t.exposeString('zone', { description: 'Forest zone, as in Site.zone' }),
    deltas: t.field({ type: ClimateDeltasRef, description: 'The deltas', resolve: (row) => row }),
  }),
})

const ClimateSourceRef = builder.objectRef<{ what: string; source: string }>('ClimateSource').implement({
  description: 'A published figure the synthesis is anchored on',
  fields: (t) => ({
    what: t.exposeString('what', { description: 'The figure' }),
    source: t.exposeString('source', { description: 'Where it is published' }),
  }),
})

const ClimateCatalogueRef = builder.objectRef<ClimateCatalogueView>('ClimateScenarios').implement({
  description: 'The climates a prediction can be made for: the same as GET /v1/climate',
  fields: (t) => ({
    baselinePeriod: t.exposeString('baselinePeriod', {
      description: '1991_2020: the climate of the site data',
    }),
    periods: t.exposeStringList('periods', { description: 'Every period, the baseline first' }),
    scenarios: t.field({
      type: [ClimateScenarioRef],
      description: 'The emission scenarios',
      resolve: (c) => c.scenarios,
    }),
    deltas: t.field({
      type: [ZoneDeltasRef],
      description: 'Every future period × scenario × forest zone, after the zone’s adjustment',
      resolve: (c) => c.deltas,
    }),
    dataVersion: t.exposeString('dataVersion', {
      description: 'Version of the climate data (a hash of the file)',
    }),
    note: t.string({
      description: 'What the values are, and what they are not for',
      resolve: () => CLIMATE_DATA_NOTE,
    }),
    description: t.exposeString('description', { description: 'The data’s own account of itself' }),
    method: t.exposeStringList('method', { description: 'How the values were derived' }),
    sources: t.field({
      type: [ClimateSourceRef],
      description: 'The published anchors',
      resolve: (c) => c.sources,
    }),
  }),
})

builder.queryFields((t) => ({
  climateScenarios: t.field({
    type: ClimateCatalogueRef,
    description:
      'The periods, emission scenarios and deltas by zone a prediction’s climate can name, with the data’s version and sources (a rounded synthesis, not for real planting decisions). Counts as one request',
    resolve: (_root, _args, ctx) => ctx.predictions.climates(),
  }),
}))
