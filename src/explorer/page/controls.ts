import type { SpeciesOption } from '../page-data.ts'
import { element } from './dom.ts'
import {
  FUTURE_CAVEAT,
  METHOD_LABELS,
  periodLabel,
  SCENARIO_LABELS,
  TODAY_CAVEAT,
  TODAY_LABEL,
  years,
} from './format.ts'
import {
  CELL_SIZES_KM,
  type CellKm,
  type Climate,
  climateOf,
  FUTURE_PERIODS,
  HORIZONS,
  type Horizon,
  MAP_MODES,
  type MapMode,
  METHODS,
  type Method,
  type Point,
  roundCoordinate,
  SCENARIOS,
  TODAY_PERIOD,
  type ViewState,
} from './state.ts'

/** What the controls ask of the page: each choice made in them. */
export interface ControlsHost {
  view(): ViewState
  chooseSpecies(species: string): void
  chooseMethod(method: Method): void
  chooseHorizon(horizon: Horizon): void
  chooseClimate(climate: Climate | null): void
  chooseMapMode(mode: MapMode): void
  /** The survival-map layer on at a cell size, or off (null). */
  showSurvivalMap(cellKm: CellKm | null): void
  /** Coordinates typed in (not checked: the page says when they are not numbers). */
  pick(point: Point): void
}

const MAP_MODE_LABELS: Record<MapMode, string> = { survival: 'Survival', change: 'Change from today' }

/**
 * The controls above the tabs: species, planting method, horizon, the survival-map layer, climate and
 * scenario with its caveat, what the map shows, and the point's coordinates.
 */
export class Controls {
  constructor(
    species: readonly SpeciesOption[],
    private readonly host: ControlsHost,
  ) {
    this.fill(species)
    this.wire()
  }

  private fill(species: readonly SpeciesOption[]): void {
    const speciesSelect = element<HTMLSelectElement>('species')
    for (const { code, commonName } of species)
      speciesSelect.append(new Option(`${commonName} (${code})`, code))
    const method = element<HTMLSelectElement>('method')
    for (const value of METHODS) method.append(new Option(METHOD_LABELS[value], value))
    const horizon = element<HTMLSelectElement>('horizon')
    for (const value of HORIZONS) horizon.append(new Option(years(value), String(value)))
    const cell = element<HTMLSelectElement>('cell-km')
    for (const value of CELL_SIZES_KM) cell.append(new Option(`${value} km`, String(value)))
    const period = element<HTMLSelectElement>('period')
    period.append(new Option(TODAY_LABEL, TODAY_PERIOD))
    for (const value of FUTURE_PERIODS) period.append(new Option(periodLabel(value), value))
    // Today's climate has no scenario: the empty choice, shown (disabled) only then.
    const scenario = element<HTMLSelectElement>('scenario')
    scenario.append(new Option('None (today)', ''))
    for (const value of SCENARIOS) scenario.append(new Option(`${SCENARIO_LABELS[value]} (${value})`, value))
    const mapMode = element<HTMLSelectElement>('map-mode')
    for (const value of MAP_MODES) mapMode.append(new Option(MAP_MODE_LABELS[value], value))
  }

  private wire(): void {
    const host = this.host
    const chosen = (event: Event) => (event.target as HTMLSelectElement).value
    element<HTMLFormElement>('controls').addEventListener('submit', (event) => event.preventDefault())
    element('species').addEventListener('change', (event) => host.chooseSpecies(chosen(event)))
    element('method').addEventListener('change', (event) => host.chooseMethod(chosen(event) as Method))
    element('horizon').addEventListener('change', (event) =>
      host.chooseHorizon(Number(chosen(event)) as Horizon),
    )
    // A future period keeps the scenario chosen before, or opens with the default one.
    element('period').addEventListener('change', (event) =>
      host.chooseClimate(climateOf(chosen(event), host.view().climate?.scenario ?? null)),
    )
    element('scenario').addEventListener('change', (event) =>
      host.chooseClimate(climateOf(host.view().climate?.period ?? null, chosen(event))),
    )
    element('map-mode').addEventListener('change', (event) => host.chooseMapMode(chosen(event) as MapMode))
    element<HTMLInputElement>('show-map').addEventListener('change', (event) => {
      const on = (event.target as HTMLInputElement).checked
      host.showSurvivalMap(on ? (Number(element<HTMLSelectElement>('cell-km').value) as CellKm) : null)
    })
    element('cell-km').addEventListener('change', (event) =>
      host.showSurvivalMap(Number(chosen(event)) as CellKm),
    )
    element<HTMLFormElement>('point-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const latitude = Number(element<HTMLInputElement>('latitude').value)
      const longitude = Number(element<HTMLInputElement>('longitude').value)
      host.pick({ latitude, longitude })
    })
  }

  /** Puts the view into the controls. */
  reflect(state: ViewState): void {
    element<HTMLSelectElement>('species').value = state.species
    element<HTMLSelectElement>('method').value = state.method
    element<HTMLSelectElement>('horizon').value = String(state.horizon)
    element<HTMLInputElement>('show-map').checked = state.mapCellKm !== null
    element<HTMLSelectElement>('cell-km').value = String(state.mapCellKm ?? 25)
    element<HTMLSelectElement>('cell-km').disabled = state.mapCellKm === null
    const climate = state.climate
    element<HTMLSelectElement>('period').value = climate?.period ?? TODAY_PERIOD
    const scenario = element<HTMLSelectElement>('scenario')
    scenario.value = climate?.scenario ?? ''
    scenario.disabled = climate === null
    const none = scenario.options[0] as HTMLOptionElement
    none.disabled = none.hidden = climate !== null
    const mapMode = element<HTMLSelectElement>('map-mode')
    mapMode.value = state.mapMode
    mapMode.disabled = climate === null || state.mapCellKm === null
    const change = mapMode.options[1] as HTMLOptionElement
    change.disabled = climate === null
    element('climate-caveat').textContent = climate ? FUTURE_CAVEAT : TODAY_CAVEAT
    element('climate-caveat').dataset.kind = climate ? 'future' : 'today'
    const point = state.point
    element<HTMLInputElement>('latitude').value = point ? String(roundCoordinate(point.latitude)) : ''
    element<HTMLInputElement>('longitude').value = point ? String(roundCoordinate(point.longitude)) : ''
  }
}
