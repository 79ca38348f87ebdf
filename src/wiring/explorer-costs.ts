import { SPECIES } from '../domain/species.ts'
import { COSTS } from '../domain/stocking/costs.ts'
import type { CostDefaultOption } from '../explorer/page-data.ts'

/** A seedling price shared by more species than this is named by their group, not listed. */
const LISTED_SPECIES_MAX = 5

/** The cost defaults the explorer's Plan tab shows beside its cost inputs, from data/costs.json. */
export function explorerCostDefaults(): CostDefaultOption[] {
  return COSTS.defaults.map((figure) => {
    let species = ''
    if (figure.item === 'seedlings') {
      const priced = SPECIES.filter((s) => COSTS.defaultSeedling(s) === figure)
      species =
        priced.length <= LISTED_SPECIES_MAX
          ? priced.map((s) => s.code).join(', ')
          : priced.every((s) => s.group === 'hardwood')
            ? 'hardwoods'
            : 'other conifers'
    }
    return {
      item: figure.item,
      species,
      unit: figure.unit,
      value: figure.value,
      status: figure.status,
      priceYear: figure.priceYear,
      priceYearNote: figure.priceYearNote,
    }
  })
}
