import type { PlantingMethod } from './generated/operations.ts'

/**
 * The view a URL describes: species, planting method, horizon, climate, the model version, the clicked
 * point, the open panel and the map layer. Reloading a URL shows the same view; the API key is never
 * part of it.
 */

export const METHODS = ['manual', 'drone_seeded'] as const
export type Method = (typeof METHODS)[number]
/** Each planting method as the API's PlantingMethod enum names it. */
export const GRAPHQL_METHOD: Record<Method, PlantingMethod> = {
  manual: 'MANUAL',
  drone_seeded: 'DRONE_SEEDED',
}
export const HORIZONS = [1, 3, 5] as const
export type Horizon = (typeof HORIZONS)[number]
/** The tabs, in the order they stand (the arrow keys go round them in it). */
export const PANELS = ['compare', 'ranking', 'observations', 'plan'] as const
export type Panel = (typeof PANELS)[number]
export const CELL_SIZES_KM = [10, 25, 50] as const
export type CellKm = (typeof CELL_SIZES_KM)[number]
/** The climate identifiers of the API (the Seedlot Selection Tool's): today's period, then the futures. */
export const TODAY_PERIOD = '1991_2020'
export const FUTURE_PERIODS = ['2011-2040', '2041-2070', '2071-2100'] as const
export type FuturePeriod = (typeof FUTURE_PERIODS)[number]
export const SCENARIOS = ['ssp245', 'ssp370', 'ssp585'] as const
export type Scenario = (typeof SCENARIOS)[number]
/** The scenario a future period opens with: the middle of the road. */
export const DEFAULT_SCENARIO: Scenario = 'ssp245'
export const MAP_MODES = ['survival', 'change'] as const
/** What the survival-map layer colours: survival, or (under a future climate) its change from today. */
export type MapMode = (typeof MAP_MODES)[number]

export interface Point {
  latitude: number
  longitude: number
}

/** A future climate: a period with its emission scenario (a future period never goes without one). */
export interface Climate {
  period: FuturePeriod
  scenario: Scenario
}

export interface ViewState {
  species: string
  method: Method
  horizon: Horizon
  /** The future climate the comparison, the ranking and the map are for; null is today's. */
  climate: Climate | null
  /**
   * The model version every prediction of the page names (modelVersion), e.g. 0.2+cal.3f9a1c2e; null
   * names none, so the account's default answers.
   */
  model: string | null
  point: Point | null
  panel: Panel
  /** The survival-map layer is shown, at this cell size; null when it is off. */
  mapCellKm: CellKm | null
  /** 'change' only under a future climate. */
  mapMode: MapMode
}

export const DEFAULT_STATE: ViewState = {
  species: 'PSME',
  method: 'manual',
  horizon: 5,
  climate: null,
  model: null,
  point: null,
  panel: 'compare',
  mapCellKm: null,
  mapMode: 'survival',
}

/** A model version as the API takes one (1 to 64 characters); the page keeps to the characters versions use. */
const MODEL_VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/

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

/**
 * The climate of a period and a scenario as a URL or a control gives them: today's period (or none,
 * or an unknown one) is today; a future period keeps its scenario, or takes the default one.
 */
export function climateOf(period: string | null, scenario: string | null): Climate | null {
  const future = FUTURE_PERIODS.find((value) => value === period)
  return future ? { period: future, scenario: oneOf(SCENARIOS, scenario, DEFAULT_SCENARIO) } : null
}

export function sameClimate(a: Climate | null, b: Climate | null): boolean {
  return a?.period === b?.period && a?.scenario === b?.scenario
}

/** The change map needs a future to compare with today: without one the map shows survival. */
export function mapModeUnder(climate: Climate | null, mode: MapMode): MapMode {
  return climate ? mode : 'survival'
}

/** What a prediction's input adds to name the view's model version: nothing for the account's default. */
export function pinned(state: Pick<ViewState, 'model'>): { modelVersion?: string } {
  return state.model === null ? {} : { modelVersion: state.model }
}

/** Reads a view from a query string; anything missing or malformed falls back to the default. */
export function parseViewState(search: string): ViewState {
  const params = new URLSearchParams(search)
  const species = params.get('species')?.trim().toUpperCase() ?? ''
  const latitude = coordinate(params.get('lat'), 90)
  const longitude = coordinate(params.get('lng'), 180)
  const climate = climateOf(params.get('period'), params.get('scenario'))
  // A '+' typed into a link reads as a space; versions have none, so it is the '+' meant.
  const model = params.get('model')?.trim().replaceAll(' ', '+') ?? ''
  return {
    species: /^[A-Z]{2,8}$/.test(species) ? species : DEFAULT_STATE.species,
    method: oneOf(METHODS, params.get('method'), DEFAULT_STATE.method),
    horizon: oneOf(HORIZONS, params.get('horizon'), DEFAULT_STATE.horizon),
    climate,
    model: MODEL_VERSION.test(model) ? model : null,
    point: latitude !== null && longitude !== null ? { latitude, longitude } : null,
    panel: oneOf(PANELS, params.get('panel'), DEFAULT_STATE.panel),
    mapCellKm: params.has('map') ? oneOf(CELL_SIZES_KM, params.get('map'), 25) : null,
    mapMode: mapModeUnder(climate, oneOf(MAP_MODES, params.get('mapMode'), DEFAULT_STATE.mapMode)),
  }
}

/**
 * The query string of a view (with its leading '?'), in a fixed parameter order. Today's climate, the
 * account's default model version and the survival map mode are the defaults and write nothing, so
 * today's links read as they always have. A version's '+' is written %2B.
 */
export function serializeViewState(state: ViewState): string {
  const params = new URLSearchParams()
  params.set('species', state.species)
  params.set('method', state.method)
  params.set('horizon', String(state.horizon))
  if (state.climate) {
    params.set('period', state.climate.period)
    params.set('scenario', state.climate.scenario)
  }
  if (state.model !== null) params.set('model', state.model)
  if (state.point) {
    params.set('lat', String(roundCoordinate(state.point.latitude)))
    params.set('lng', String(roundCoordinate(state.point.longitude)))
  }
  params.set('panel', state.panel)
  if (state.mapCellKm !== null) params.set('map', String(state.mapCellKm))
  if (mapModeUnder(state.climate, state.mapMode) === 'change') params.set('mapMode', 'change')
  return `?${params.toString()}`
}
