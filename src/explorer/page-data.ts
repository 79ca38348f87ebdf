/**
 * What the server writes into the explorer page, so that its controls never wait for a request: the
 * species list, the search radius its messages name, the default costs the Plan tab's cost inputs
 * replace and, in demo mode, a key.
 */
export interface ExplorerPageData {
  species: SpeciesOption[]
  demoKey: string | null
  searchRadiusKm: number
  costDefaults: CostDefaultOption[]
}

export interface SpeciesOption {
  code: string
  commonName: string
}

/** A default of data/costs.json as the Plan tab shows it beside the input that replaces it. */
export interface CostDefaultOption {
  /** The item: seedlings, planting, site_preparation, release, tubes, shade_cards, drone_seeding, seed_pods. */
  item: string
  /** Seedlings: the species it prices, or the group (`other conifers`, `hardwoods`); empty otherwise. */
  species: string
  unit: string
  value: number
  status: string
  priceYear: number | null
  priceYearNote: string | null
}
