/**
 * The view a URL describes: species, planting method, horizon, the clicked point and the open panel.
 * Reloading a URL shows the same view; the API key is never part of it.
 */

export const METHODS = ['manual', 'drone_seeded'] as const
export type Method = (typeof METHODS)[number]
export const HORIZONS = [1, 3, 5] as const
export type Horizon = (typeof HORIZONS)[number]
export const PANELS = ['compare', 'ranking'] as const
export type Panel = (typeof PANELS)[number]
export const CELL_SIZES_KM = [10, 25, 50] as const
export type CellKm = (typeof CELL_SIZES_KM)[number]

export interface Point {
  latitude: number
  longitude: number
}

export interface ViewState {
  species: string
  method: Method
  horizon: Horizon
  point: Point | null
  panel: Panel
  /** The survival-map layer is shown, at this cell size; null when it is off. */
  mapCellKm: CellKm | null
}

export const DEFAULT_STATE: ViewState = {
  species: 'PSME',
  method: 'manual',
  horizon: 5,
  point: null,
  panel: 'compare',
  mapCellKm: null,
}

/** Coordinates are kept to 5 decimals (about a metre): enough for a site, short in a URL. */
const COORDINATE_DECIMALS = 5

function oneOf<T extends string | number>(allowed: readonly T[], raw: string | null, fallback: T): T {
  if (raw === null) return fallback
  const match = allowed.find((value) => String(value) === raw)
  return match ?? fallback
}

function coordinate(raw: string | null, limit: number): number | null {
  if (raw === null || raw.trim() === '') return null
  const value = Number(raw)
  return Number.isFinite(value) && Math.abs(value) <= limit ? value : null
}

export function roundCoordinate(value: number): number {
  return Number(value.toFixed(COORDINATE_DECIMALS))
}

/** Reads a view from a query string; anything missing or malformed falls back to the default. */
export function parseViewState(search: string): ViewState {
  const params = new URLSearchParams(search)
  const species = params.get('species')?.trim().toUpperCase() ?? ''
  const latitude = coordinate(params.get('lat'), 90)
  const longitude = coordinate(params.get('lng'), 180)
  return {
    species: /^[A-Z]{2,8}$/.test(species) ? species : DEFAULT_STATE.species,
    method: oneOf(METHODS, params.get('method'), DEFAULT_STATE.method),
    horizon: oneOf(HORIZONS, params.get('horizon'), DEFAULT_STATE.horizon),
    point: latitude !== null && longitude !== null ? { latitude, longitude } : null,
    panel: oneOf(PANELS, params.get('panel'), DEFAULT_STATE.panel),
    mapCellKm: params.has('map') ? oneOf(CELL_SIZES_KM, params.get('map'), 25) : null,
  }
}

/** The query string of a view (with its leading '?'), in a fixed parameter order. */
export function serializeViewState(state: ViewState): string {
  const params = new URLSearchParams()
  params.set('species', state.species)
  params.set('method', state.method)
  params.set('horizon', String(state.horizon))
  if (state.point) {
    params.set('lat', String(roundCoordinate(state.point.latitude)))
    params.set('lng', String(roundCoordinate(state.point.longitude)))
  }
  params.set('panel', state.panel)
  if (state.mapCellKm !== null) params.set('map', String(state.mapCellKm))
  return `?${params.toString()}`
}
