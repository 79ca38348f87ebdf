import { busy, element } from './dom.ts'
import { climateLabel, METHOD_LABELS, modelName } from './format.ts'
import {
  ExplorerCoverageDocument,
  ExplorerSurvivalMapDocument,
  type ExplorerSurvivalMapQuery,
} from './generated/operations.ts'
import type { PanelHost } from './host.ts'
import { climateOf, GRAPHQL_METHOD, mapModeUnder, pinned } from './state.ts'

type SurvivalMapAnswer = NonNullable<ExplorerSurvivalMapQuery['survivalMap']>

const MAP_FUTURE_NOTE = 'A rounded synthesis on synthetic sites: not for real planting decisions.'

/** What the map pane asks the API for: the coverage outline, and the survival-map layer when it is on. */
export class MapPanel {
  /** The survival map shown, kept so that switching between survival and change needs no request. */
  private survivalMap: SurvivalMapAnswer | null = null
  /** Each load's number: an answer that arrives after a newer question is dropped. */
  private readonly asked = { survivalMap: 0, coverage: 0 }
  private coverageShown = false

  constructor(private readonly host: PanelHost) {}

  /** Another key: the coverage is asked for again with it. */
  forgetCoverage(): void {
    this.coverageShown = false
  }

  async loadCoverage(): Promise<void> {
    if (this.coverageShown) return
    const asked = ++this.asked.coverage
    const region = element('map-pane')
    busy(region, true)
    try {
      const { data } = await this.host.api.query(ExplorerCoverageDocument, {})
      if (asked !== this.asked.coverage || !data.coverage) return
      this.host.map.showCoverage(data.coverage.geojson as GeoJSON.GeoJsonObject)
      this.coverageShown = true
    } catch (error) {
      if (asked === this.asked.coverage) this.host.map.say(this.host.messageFor(error), 'warning')
    } finally {
      if (asked === this.asked.coverage) busy(region, false)
    }
  }

  async loadSurvivalMap(): Promise<void> {
    const view = this.host.view()
    const { species, method, horizon, climate, mapCellKm: cellKm } = view
    if (cellKm === null || !this.host.hasKey()) return
    const asked = ++this.asked.survivalMap
    const region = element('map-pane')
    busy(region, true)
    try {
      const { data, errors } = await this.host.api.query(ExplorerSurvivalMapDocument, {
        speciesCode: species,
        plantingMethod: GRAPHQL_METHOD[method],
        horizon,
        cellKm,
        climate,
        ...pinned(view),
      })
      if (asked !== this.asked.survivalMap) return
      this.survivalMap = data.survivalMap ?? null
      if (!this.survivalMap) {
        const error = errors[0]
        this.host.map.hideCells()
        this.host.map.say(
          error ? this.host.messageFor(error) : 'The survival map is not available.',
          'warning',
        )
        return
      }
      this.drawSurvivalMap()
    } catch (error) {
      if (asked === this.asked.survivalMap) this.host.map.say(this.host.messageFor(error), 'warning')
    } finally {
      if (asked === this.asked.survivalMap) busy(region, false)
    }
  }

  /** The last survival map answered, as survival or (under its future climate) as change from today. */
  drawSurvivalMap(): void {
    const survival = this.survivalMap
    const { method, mapMode, mapCellKm } = this.host.view()
    if (!survival || mapCellKm === null) return
    const mapped = survival.climate ? climateOf(survival.climate.period, survival.climate.scenario) : null
    const mode = mapModeUnder(mapped, mapMode)
    const what = `${survival.species.commonName}, ${METHOD_LABELS[method].toLowerCase()}`
    const label =
      mode === 'change'
        ? `${what}, ${survival.horizonYears} years: change from today to ${climateLabel(mapped)}, percentage points`
        : `${what}: mean survival at ${survival.horizonYears} years${mapped ? `, ${climateLabel(mapped)}` : ''}`
    // A calibrated version names itself under the legend: the map is its, not the base version's.
    const calibrated = survival.model.kind === 'CALIBRATED' ? `Model ${modelName(survival.model)}.` : null
    const note = [mapped ? MAP_FUTURE_NOTE : null, calibrated].filter((part) => part !== null).join(' ')
    this.host.map.showCells(survival.cells, { mode, label, note: note || null })
  }

  hideSurvivalMap(): void {
    this.host.map.hideCells()
  }
}
