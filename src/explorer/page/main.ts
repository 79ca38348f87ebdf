import type { ExplorerPageData } from '../page-data.ts'
import { ComparePanel } from './compare-panel.ts'
import { Controls, type ControlsHost } from './controls.ts'
import { element } from './dom.ts'
import { GisActions } from './gis-actions.ts'
import { apiMessage, type PanelHost } from './host.ts'
import { KeyPanel } from './key-panel.ts'
import { ExplorerMap } from './map.ts'
import { MapPanel } from './map-panel.ts'
import { ModelSelect } from './model-select.ts'
import { ObservationsPanel } from './observations-panel.ts'
import { PlanPanel } from './plan-panel.ts'
import { RankingPanel } from './ranking-panel.ts'
import { looksLikeResults, SNIFF_BYTES } from './results-data.ts'
import { ResultsPanel } from './results-panel.ts'
import {
  type CellKm,
  type Climate,
  type Horizon,
  type MapMode,
  type Method,
  mapModeUnder,
  type Panel,
  type Point,
  parseViewState,
  roundCoordinate,
  sameClimate,
  serializeViewState,
  type ViewState,
} from './state.ts'
import { Tabs } from './tabs.ts'

/**
 * The explorer page: its panels, each given what it needs of the page, and what each choice made in
 * the controls, the tabs or on the map asks of them. The view lives in the URL.
 */
class Explorer implements ControlsHost {
  private state: ViewState
  private readonly key: KeyPanel
  private readonly map: ExplorerMap
  private readonly plan: PlanPanel
  private readonly observations: ObservationsPanel
  private readonly results: ResultsPanel
  private readonly compare: ComparePanel
  private readonly ranking: RankingPanel
  private readonly mapPanel: MapPanel
  private readonly models: ModelSelect
  private readonly controls: Controls
  private readonly tabs: Tabs

  constructor(data: ExplorerPageData) {
    this.state = parseViewState(location.search)
    this.key = new KeyPanel({
      demoKey: data.demoKey,
      keyChanged: () => {
        this.mapPanel.forgetCoverage()
        this.observations.forget()
        void this.models.load()
        this.start()
      },
    })
    this.map = new ExplorerMap(element('map'), element('map-message'), element('map-legend'), (point) =>
      this.pick(point),
    )
    const messageFor = (error: unknown) => apiMessage(error, data.searchRadiusKm)
    this.models = new ModelSelect({
      api: this.key.api,
      hasKey: () => this.key.hasKey,
      chosen: () => this.state.model,
      choose: (version) => this.chooseModel(version),
      messageFor,
    })
    const host: PanelHost = {
      api: this.key.api,
      map: this.map,
      view: () => this.state,
      hasKey: () => this.key.hasKey,
      messageFor,
      models: this.models,
    }
    this.plan = new PlanPanel(
      {
        ...host,
        species: data.species,
        costDefaults: data.costDefaults,
        open: () => this.openPanel('plan'),
      },
      element('tab-compare').parentElement as HTMLElement,
      element('panel-ranking'),
    )
    this.observations = new ObservationsPanel(
      { ...host, species: data.species, useModel: (version) => this.chooseModel(version) },
      this.plan.tab,
      element('panel-ranking'),
    )
    this.results = new ResultsPanel(host, element('point-form'))
    this.compare = new ComparePanel(host)
    this.ranking = new RankingPanel(host)
    this.mapPanel = new MapPanel(host)
    new GisActions(host)
    this.map.onFileDrop((file) => void this.dropped(file))
    this.controls = new Controls(data.species, this)
    // A link's species that the list lacks: the first species instead.
    if (!data.species.some((s) => s.code === this.state.species))
      this.state = { ...this.state, species: data.species[0]?.code ?? this.state.species }
    this.tabs = new Tabs((panel) => this.openPanel(panel))
    let pending = 0
    new ResizeObserver(() => {
      cancelAnimationFrame(pending)
      pending = requestAnimationFrame(() => {
        this.map.resize()
        this.compare.render()
        this.ranking.render()
        this.plan.render()
        this.observations.render()
      })
    }).observe(element('side'))
    this.reflect()
    // Opened from a link: the plan waits for the point (start() picks it) instead of asking twice.
    this.plan.setShown(this.state.panel === 'plan', false)
    this.observations.setShown(this.state.panel === 'observations', false)
    this.compare.render()
    this.ranking.render()
    void this.models.load()
    this.start()
  }

  /** Loads everything the current view shows. */
  private start(): void {
    if (!this.key.hasKey) {
      this.map.say('Enter your API key above (or get a free spore key) to explore.')
      return
    }
    this.map.say(this.state.point ? null : 'Click the map, or enter coordinates, to choose a planting site.')
    void this.mapPanel.loadCoverage()
    if (this.state.point) this.pick(this.state.point)
    if (this.state.mapCellKm !== null) void this.mapPanel.loadSurvivalMap()
    if (this.state.panel === 'observations') void this.observations.load()
  }

  /**
   * Puts the view into the controls, the panels' headings, the tabs and the URL (replaceState: the back
   * button leaves the page).
   */
  private reflect(): void {
    this.controls.reflect(this.state)
    this.models.reflect()
    this.compare.reflect(this.state)
    this.ranking.reflect(this.state)
    this.tabs.reflect(this.state.panel)
    this.plan.reflect()
    history.replaceState(null, '', `${location.pathname}${serializeViewState(this.state)}`)
  }

  private update(change: Partial<ViewState>): void {
    this.state = { ...this.state, ...change }
    this.reflect()
  }

  view(): ViewState {
    return this.state
  }

  chooseSpecies(species: string): void {
    this.update({ species })
    if (this.state.point) void this.compare.load()
    if (this.state.panel === 'ranking') this.ranking.render()
    if (this.state.mapCellKm !== null) void this.mapPanel.loadSurvivalMap()
  }

  chooseMethod(method: Method): void {
    this.update({ method })
    this.compare.render()
    this.refreshRankingAndMap()
    this.plan.contextChanged()
  }

  chooseHorizon(horizon: Horizon): void {
    this.update({ horizon })
    this.compare.render()
    this.refreshRankingAndMap()
  }

  /** A new climate: the comparison, the ranking and the map are asked for again under it. */
  chooseClimate(climate: Climate | null): void {
    if (sameClimate(climate, this.state.climate)) return
    this.update({ climate, mapMode: mapModeUnder(climate, this.state.mapMode) })
    this.compare.render()
    this.ranking.render()
    if (this.state.point && this.key.hasKey) void this.compare.load()
    this.refreshRankingAndMap()
    this.plan.contextChanged()
  }

  /** Another model version (null: the account's default): every prediction shown is asked for again with it. */
  chooseModel(model: string | null): void {
    if (model === this.state.model) return
    this.update({ model })
    if (this.state.point && this.key.hasKey) void this.compare.load()
    this.refreshRankingAndMap()
    this.plan.contextChanged()
    this.observations.modelChanged()
  }

  chooseMapMode(mode: MapMode): void {
    this.update({ mapMode: mapModeUnder(this.state.climate, mode) })
    this.mapPanel.drawSurvivalMap()
  }

  showSurvivalMap(cellKm: CellKm | null): void {
    this.update({ mapCellKm: cellKm })
    if (cellKm === null) this.mapPanel.hideSurvivalMap()
    else void this.mapPanel.loadSurvivalMap()
  }

  pick(point: Point): void {
    if (!Number.isFinite(point.latitude) || !Number.isFinite(point.longitude)) {
      this.map.say('Enter a latitude and a longitude in decimal degrees.', 'warning')
      return
    }
    this.update({
      point: { latitude: roundCoordinate(point.latitude), longitude: roundCoordinate(point.longitude) },
    })
    if (!this.key.hasKey) {
      this.start()
      return
    }
    void this.compare.load()
    if (this.state.panel === 'ranking') void this.ranking.load()
    this.plan.pointChanged()
  }

  private refreshRankingAndMap(): void {
    if (this.state.panel === 'ranking' && this.state.point) void this.ranking.load()
    if (this.state.mapCellKm !== null) void this.mapPanel.loadSurvivalMap()
  }

  private openPanel(panel: Panel): void {
    if (panel === this.state.panel) return
    this.update({ panel })
    if (panel === 'ranking' && this.state.point) void this.ranking.load()
    this.plan.setShown(panel === 'plan')
    this.observations.setShown(panel === 'observations')
  }

  /** A file dropped on the map: a job's results go to the results layer, anything else is a stand to plan. */
  private async dropped(file: File): Promise<void> {
    const head = await file.slice(0, SNIFF_BYTES).text()
    if (looksLikeResults(head)) await this.results.loadFile(file)
    else this.plan.dropFile(file)
  }
}

new Explorer(JSON.parse(element('explorer-data').textContent ?? '{}') as ExplorerPageData)
