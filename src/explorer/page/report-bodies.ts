/*
 * "Download PDF" on the Compare, Rank and Plan tabs (docs/explorer.md): the request behind the answer
 * a tab shows, as the REST body that asks for the same answer with Accept: application/pdf, pinned to
 * the model version that answered. The page asks GraphQL; the report is asked of REST, which takes a
 * stand of any size the API does (a GraphQL report link carries its request in the URL).
 */
import type {
  ClimateInput,
  ComparisonInput,
  ExplorerRankingQueryVariables,
  StockingPlanInput,
  TreatmentsInput,
} from './generated/operations.ts'

/** The fields that are set: the body names nothing absent. */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  )
}

/** A GraphQL enum value (MANUAL, RELEASE_1YR) as the REST contract spells it (manual, release_1yr). */
const restValue = (value: string | null | undefined) => value?.toLowerCase()

function climateBody(climate: ClimateInput | null | undefined) {
  return climate ? present({ period: climate.period, scenario: climate.scenario }) : undefined
}

function treatmentsBody(treatments: TreatmentsInput | null | undefined) {
  if (!treatments) return undefined
  const body = present({
    vegetation_control: restValue(treatments.vegetationControl),
    animal_protection: restValue(treatments.animalProtection),
    stock_type: restValue(treatments.stockType),
    shade: restValue(treatments.shade),
  })
  return Object.keys(body).length > 0 ? body : undefined
}

export interface ReportAsk {
  /** The REST operation that answers the report. */
  path: '/v1/predict/compare' | '/v1/predict/rank' | '/v1/plans/stocking'
  body: Record<string, unknown>
}

export function compareReport(input: ComparisonInput, modelVersion: string): ReportAsk {
  return {
    path: '/v1/predict/compare',
    body: present({
      latitude: input.latitude,
      longitude: input.longitude,
      species_code: input.speciesCode,
      horizons: input.horizons,
      climate: climateBody(input.climate),
      treatments: treatmentsBody(input.treatments),
      model_version: modelVersion,
    }),
  }
}

export function rankReport(variables: ExplorerRankingQueryVariables, modelVersion: string): ReportAsk {
  return {
    path: '/v1/predict/rank',
    body: present({
      latitude: variables.latitude,
      longitude: variables.longitude,
      planting_method: restValue(variables.plantingMethod),
      horizon: variables.horizon,
      climate: climateBody(variables.climate),
      model_version: modelVersion,
    }),
  }
}

export function planReport(input: StockingPlanInput, modelVersion: string): ReportAsk {
  return {
    path: '/v1/plans/stocking',
    body: present({
      latitude: input.latitude,
      longitude: input.longitude,
      stand: input.stand,
      planting_method: restValue(input.plantingMethod),
      species_mix: input.speciesMix.map((item) => ({ species_code: item.speciesCode, share: item.share })),
      trees_per_acre: input.treesPerAcre,
      trees_per_hectare: input.treesPerHectare,
      confidence: input.confidence,
      rule_set: input.ruleSet,
      site_class: input.siteClass,
      target_trees_per_acre: input.targetTreesPerAcre,
      climate: climateBody(input.climate),
      treatments: treatmentsBody(input.treatments),
      model_version: modelVersion,
    }),
  }
}

/**
 * The browser's language as Accept-Language sends it: the report's language (Spanish for es-*, else
 * English) and, by its region, its paper (US Letter in the Americas' Letter regions, A4 elsewhere).
 */
export function browserLanguage(
  languages: readonly string[] | undefined,
  language: string | undefined,
): string {
  const tag = languages?.[0] ?? language ?? 'en'
  return /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(tag) ? tag : 'en'
}
