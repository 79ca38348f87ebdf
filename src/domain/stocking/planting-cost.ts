import type { PlantingMethod, Species } from '../../types.ts'
import type { TreatmentName } from '../treatment-values.ts'
import { type CostFigure, type CostPart, leastCertain, type PlanCost, type ResolvedCosts } from './costs.ts'
import { round } from './stocking-math.ts'

/*
 * What a planting costs (docs/costs.md): its parts per acre from the resolved figures, per tree
 * established, and a plan's cost block. The figures and their statuses come from costs.ts.
 */

/** Site preparations and releases each value of vegetation_control stands for. */
const VEGETATION_CONTROL_WORK: Record<string, { sitePreparation: number; releases: number }> = {
  none: { sitePreparation: 0, releases: 0 },
  site_prep: { sitePreparation: 1, releases: 0 },
  release_1yr: { sitePreparation: 0, releases: 1 },
  release_2yr: { sitePreparation: 0, releases: 2 },
  site_prep_release_1yr: { sitePreparation: 1, releases: 1 },
  site_prep_release_2yr: { sitePreparation: 1, releases: 2 },
}

/** What is planted and done per acre: the mix, the method, the treatments' values, the density. */
export interface CostedPlanting {
  mix: readonly { species: Species; share: number }[]
  method: PlantingMethod
  /** The treatments' values (null or absent: not named; `none`: none). */
  treatments: Readonly<Partial<Record<TreatmentName, string | null>>> | null
  /** Trees (manual) or seed pods (drone seeding) per acre. */
  planted: number
}

/**
 * The parts of a planting's cost per acre and their sum. Hand planting: seedlings by species, planting,
 * tubes and shade cards per tree; drone seeding: the flight per acre and the pods; both: site
 * preparation and releases as the vegetation control asks. A stock type changes no price (none found).
 */
export function costPerAcre(
  planting: CostedPlanting,
  costs: ResolvedCosts,
): { perAcre: number; parts: CostPart[] } {
  const { mix, method, planted } = planting
  const values = planting.treatments ?? {}
  const parts: CostPart[] = []
  const add = (figure: CostFigure, quantity: number, speciesCode: string | null = null) => {
    if (quantity <= 0) return
    parts.push({
      item: figure.item,
      speciesCode,
      unit: figure.unit,
      unitCost: figure.value,
      quantity,
      perAcre: figure.value * quantity,
      status: figure.status,
      defaultId: figure.defaultId,
      priceYear: figure.priceYear,
      sources: figure.sources,
    })
  }
  if (method === 'manual') {
    for (const { species, share } of mix) add(costs.seedling(species), planted * share, species.code)
    add(costs.figure('planting'), planted)
  } else {
    add(costs.figure('drone_seeding'), 1)
    add(costs.figure('seed_pods'), planted)
  }
  const work = VEGETATION_CONTROL_WORK[values.vegetation_control ?? 'none'] ?? VEGETATION_CONTROL_WORK.none
  add(costs.figure('site_preparation'), work?.sitePreparation ?? 0)
  add(costs.figure('release'), work?.releases ?? 0)
  if (values.animal_protection === 'mesh_tubes') add(costs.figure('tubes'), planted)
  if (values.shade === 'shade_cards') add(costs.figure('shade_cards'), planted)
  const total = parts.reduce((sum, part) => sum + part.perAcre, 0)
  return {
    perAcre: round(total, 2),
    parts: parts.map((part) => ({
      ...part,
      quantity: round(part.quantity, 2),
      perAcre: round(part.perAcre, 2),
    })),
  }
}

/** Cost per established tree: cost per acre over the trees alive per acre; null when none is. */
export function costPerEstablishedTree(perAcre: number, established: number): number | null {
  return established > 0 ? round(perAcre / established, 3) : null
}

/**
 * A planting's cost block: per acre, and per tree established at the rule's horizon with the interval
 * the plan's interval of survivors (`lower`…`upper` trees per acre at `level`) gives it.
 */
export function planCost(
  planting: CostedPlanting,
  costs: ResolvedCosts,
  at: { horizonYears: number; survival: number; lower: number; upper: number; level: number },
  dataVersion: string,
): PlanCost {
  const { perAcre, parts } = costPerAcre(planting, costs)
  const established = planting.planted * at.survival
  return {
    currency: 'USD',
    perAcre,
    horizonYears: at.horizonYears,
    establishedTreesPerAcre: round(established, 1),
    perEstablishedTree: costPerEstablishedTree(perAcre, established),
    perEstablishedTreeInterval: {
      lower: costPerEstablishedTree(perAcre, at.upper),
      upper: costPerEstablishedTree(perAcre, at.lower),
      level: at.level,
    },
    parts,
    leastCertainStatus: leastCertain(parts.map((part) => part.status)),
    dataVersion,
  }
}
