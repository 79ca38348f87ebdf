/**
 * What the server writes into the explorer page, so that its controls never wait for a request: the
 * species list, the search radius its messages name and, in demo mode, a key.
 */
export interface ExplorerPageData {
  species: SpeciesOption[]
  demoKey: string | null
  searchRadiusKm: number
}

export interface SpeciesOption {
  code: string
  commonName: string
}
