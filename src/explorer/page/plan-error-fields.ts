/** The inputs of the Plan tab an API error can be about. */
export type PlanField =
  | 'point'
  | 'stand'
  | 'mix'
  | 'density'
  | 'confidence'
  | 'ruleSet'
  | 'siteClass'
  | 'target'
  | 'method'
  | 'climate'
  | 'treatments'
  | 'costs'

/** The Plan input an error's `details.field` names ("input.speciesMix", "input.stand.coordinates[0]", …). */
export function planFieldOf(field: unknown): PlanField | null {
  if (typeof field !== 'string') return null
  const name = field.replace(/^input\./, '').split(/[.[]/)[0] ?? ''
  const fields: Record<string, PlanField> = {
    latitude: 'point',
    longitude: 'point',
    stand: 'stand',
    speciesMix: 'mix',
    species_mix: 'mix',
    treesPerAcre: 'density',
    trees_per_acre: 'density',
    treesPerHectare: 'density',
    trees_per_hectare: 'density',
    confidence: 'confidence',
    ruleSet: 'ruleSet',
    rule_set: 'ruleSet',
    siteClass: 'siteClass',
    site_class: 'siteClass',
    targetTreesPerAcre: 'target',
    target_trees_per_acre: 'target',
    plantingMethod: 'method',
    climate: 'climate',
    treatments: 'treatments',
    costs: 'costs',
  }
  return fields[name] ?? null
}
