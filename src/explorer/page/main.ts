import { ExplorerApi, ExplorerApiError, type Quota } from './api.ts'
import {
  type Comparison,
  climateLabel,
  factorChart,
  METHOD_LABELS,
  percent,
  periodLabel,
  points,
  type RankedRow,
  rankingChart,
  SCENARIO_LABELS,
  survivalChart,
  TODAY_LABEL,
  type TodayBeside,
} from './charts.ts'
import { type CsvCell, toCsv } from './csv.ts'
import {
  ExplorerClimateCompareDocument,
  type ExplorerClimateFragment,
  ExplorerCompareDocument,
  ExplorerCoverageDocument,
  ExplorerRankingDocument,
  ExplorerSurvivalMapDocument,
  type ExplorerSurvivalMapQuery,
  type PlantingMethod,
} from './generated/operations.ts'
import { ExplorerMap } from './map.ts'
import { PlanPanel } from './plan.ts'
import { looksLikeResults, SNIFF_BYTES } from './results-data.ts'
import { ResultsPanel } from './results-layer.ts'
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
  mapModeUnder,
  PANELS,
  type Panel,
  type Point,
  parseViewState,
  roundCoordinate,
  SCENARIOS,
  serializeViewState,
  TODAY_PERIOD,
  type ViewState,
} from './state.ts'

/** What the server writes into the page: the species list (so the controls never wait) and, in demo mode, a key. */
interface PageData {
  species: { code: string; commonName: string }[]
  demoKey: string | null
  searchRadiusKm: number
}

/** The key lives in this tab's sessionStorage only: never in the URL, never in a cookie. */
const KEY_STORAGE = 'survival-explorer.api-key'

const GRAPHQL_METHOD: Record<Method, PlantingMethod> = { manual: 'MANUAL', drone_seeded: 'DRONE_SEEDED' }

const SITE_ATTRIBUTES: [keyof Comparison['site'], string, (value: never) => string][] = [
  ['forestRegion', 'Forest region', String],
  ['zone', 'Ecological zone', (v: string) => v.replaceAll('_', ' ')],
  ['elevationM', 'Elevation', (v: number) => `${v} m`],
  ['slopeDeg', 'Slope', (v: number) => `${v.toFixed(1)}°`],
  ['aspectDeg', 'Aspect', (v: number) => `${v.toFixed(0)}° from north`],
  ['annualPrecipMm', 'Annual precipitation', (v: number) => `${v} mm`],
  ['summerWaterDeficitMm', 'Summer water deficit', (v: number) => `${v} mm`],
  ['growingSeasonFrostDays', 'Growing-season frost days', String],
  ['heatLoadIndex', 'Heat load index', (v: number) => v.toFixed(2)],
  ['soilDepthCm', 'Soil depth', (v: number) => `${v} cm`],
  ['rockFractionPct', 'Rock fraction', (v: number) => `${v.toFixed(0)} %`],
  ['vegetationCoverPct', 'Competing vegetation cover', (v: number) => `${v.toFixed(0)} %`],
  ['browsePressureIndex', 'Browse pressure index', (v: number) => v.toFixed(2)],
]

/** Where a future climate's values surface, the page says what they are not for. */
const FUTURE_CAVEAT = 'A rounded synthesis of projections: not for real planting decisions.'
const TODAY_CAVEAT = 'Today: the climate of the site data (1991–2020).'
const MAP_FUTURE_NOTE = 'A rounded synthesis on synthetic sites: not for real planting decisions.'

const MAP_MODE_LABELS: Record<MapMode, string> = { survival: 'Survival', change: 'Change from today' }

/** The site attributes a future climate changes, as the model evaluated them there. */
const PROJECTED: Partial<
  Record<keyof Comparison['site'], (p: ExplorerClimateFragment['projected']) => string>
> = {
  annualPrecipMm: (p) => `${Math.round(p.annualPrecipMm)} mm`,
  summerWaterDeficitMm: (p) => `${Math.round(p.summerWaterDeficitMm)} mm`,
  growingSeasonFrostDays: (p) => p.growingSeasonFrostDays.toFixed(1),
}

/** A comparison as it was answered: for the climate it was asked for, with today's survival beside a future. */
interface ComparisonAnswer {
  comparison: Comparison
  climate: Climate | null
  projection: ExplorerClimateFragment | null
  today: TodayBeside | null
}

type SurvivalMapAnswer = NonNullable<ExplorerSurvivalMapQuery['survivalMap']>

/** A signed value as written ("+2.3 °C", "−8.0 %"); a value that rounds to zero has no sign. */
function signedNumber(value: number, digits: number, unit: string): string {
  const rounded = Number(value.toFixed(digits))
  const sign = rounded > 0 ? '+' : rounded < 0 ? '−' : ''
  return `${sign}${Math.abs(rounded).toFixed(digits)}${unit}`
}

/** The deltas a future climate applied at the matched site, in one sentence. */
function deltasSentence(deltas: ExplorerClimateFragment['deltas']): string {
  return `At this site: mean annual temperature ${signedNumber(deltas.meanAnnualTemperatureC, 1, ' °C')}, summer maximum ${signedNumber(deltas.summerMaxTemperatureC, 1, ' °C')}, annual precipitation ${signedNumber(deltas.annualPrecipitationPct, 1, ' %')}, summer precipitation ${signedNumber(deltas.summerPrecipitationPct, 1, ' %')}, water deficit ${signedNumber(deltas.waterDeficitMm, 0, ' mm')}.`
}

/** "2041–2070, SSP2-4.5 (climate-synthesis-…): <the data's note>." */
function climateNote(climate: Climate, dataVersion: string, note: string): string {
  return `${climateLabel(climate)} (${dataVersion}): ${note}.`
}

function sameClimate(a: Climate | null, b: Climate | null): boolean {
  return a?.period === b?.period && a?.scenario === b?.scenario
}

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id)
  if (!found) throw new Error(`the page has no #${id}`)
  return found as T
}

function readPageData(): PageData {
  return JSON.parse(element('explorer-data').textContent ?? '{}') as PageData
}

/** Marks a region as waiting for an answer: aria-busy for readers, a spinner for eyes. */
function busy(region: HTMLElement, on: boolean): void {
  region.setAttribute('aria-busy', String(on))
  region.classList.toggle('is-loading', on)
}

function download(filename: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** Answers that are about the chosen point, not failures: shown as plain messages on the map. */
function messageFor(error: ExplorerApiError, searchRadiusKm: number): string {
  switch (error.code) {
    case 'outside_coverage':
      return 'Outside coverage: the model covers Oregon and Washington (outlined in green). Choose a point inside.'
    case 'no_nearby_data':
      return `No nearby data: no forest site within ${searchRadiusKm} km of this point (urban, farmland or water). Choose a forested point.`
    case 'missing_api_key':
    case 'invalid_api_key':
      return `Your API key was not accepted: ${error.message}`
    default:
      return error.requestId ? `${error.message} (request ${error.requestId})` : error.message
  }
}

/** Chart boxes have fixed heights (explorer.css), so an answer never moves what is below them. */
const LEGEND_HEIGHT = 34

function chartWidth(container: HTMLElement): number {
  return Math.max(280, Math.floor(container.clientWidth))
}

function chartHeight(container: HTMLElement): number {
  return Math.max(120, Math.floor(container.clientHeight) - LEGEND_HEIGHT)
}

class Explorer {
  private state: ViewState
  private answer: ComparisonAnswer | null = null
  private ranking: RankedRow[] | null = null
  /** The climate the ranking shown was asked for. */
  private rankingClimate: Climate | null = null
  /** The survival map shown, kept so that switching between survival and change needs no request. */
  private survivalMap: SurvivalMapAnswer | null = null
  private readonly api: ExplorerApi
  private readonly map: ExplorerMap
  private readonly plan: PlanPanel
  private readonly results: ResultsPanel
  /** Each load's sequence number: an answer that arrives after a newer question is dropped. */
  private readonly asked = { compare: 0, ranking: 0, survivalMap: 0, coverage: 0 }
  private coverageShown = false

  constructor(private readonly data: PageData) {
    this.state = parseViewState(location.search)
    this.api = new ExplorerApi(
      () => sessionStorage.getItem(KEY_STORAGE) ?? '',
      (quota) => this.showQuota(quota),
    )
    this.map = new ExplorerMap(element('map'), element('map-message'), element('map-legend'), (point) =>
      this.pick(point),
    )
    if (!sessionStorage.getItem(KEY_STORAGE) && data.demoKey)
      sessionStorage.setItem(KEY_STORAGE, data.demoKey)
    this.plan = new PlanPanel(
      {
        api: this.api,
        map: this.map,
        species: data.species,
        view: () => ({
          point: this.state.point,
          method: this.state.method,
          climate: this.state.climate,
          species: this.state.species,
        }),
        hasKey: () => this.hasKey,
        messageFor: (error) => messageFor(error, data.searchRadiusKm),
        open: () => this.openPanel('plan'),
        busy,
      },
      element('tab-compare').parentElement as HTMLElement,
      element('panel-ranking'),
    )
    this.results = new ResultsPanel(
      {
        api: this.api,
        map: this.map,
        hasKey: () => this.hasKey,
        horizon: () => this.state.horizon,
        messageFor: (error) => messageFor(error, data.searchRadiusKm),
        busy,
      },
      element('point-form'),
    )
    this.map.onFileDrop((file) => void this.dropped(file))
    this.fillControls()
    this.wireControls()
    this.reflectState()
    // Opened from a link: the plan waits for the point (start() picks it) instead of asking twice.
    this.plan.setShown(this.state.panel === 'plan', false)
    this.renderComparison()
    this.renderRanking()
    this.start()
  }

  private get hasKey(): boolean {
    return (sessionStorage.getItem(KEY_STORAGE) ?? '') !== ''
  }

  /** Loads everything the current view shows. */
  private start(): void {
    if (!this.hasKey) {
      this.map.say('Enter your API key above (or get a free spore key) to explore.')
      return
    }
    this.map.say(this.state.point ? null : 'Click the map, or enter coordinates, to choose a planting site.')
    void this.loadCoverage()
    if (this.state.point) this.pick(this.state.point)
    if (this.state.mapCellKm !== null) void this.loadSurvivalMap()
  }

  // ----- controls -----

  private fillControls(): void {
    const species = element<HTMLSelectElement>('species')
    for (const { code, commonName } of this.data.species)
      species.append(new Option(`${commonName} (${code})`, code))
    if (!this.data.species.some((s) => s.code === this.state.species))
      this.state = { ...this.state, species: this.data.species[0]?.code ?? this.state.species }
    const method = element<HTMLSelectElement>('method')
    for (const value of METHODS) method.append(new Option(METHOD_LABELS[value], value))
    const horizon = element<HTMLSelectElement>('horizon')
    for (const value of HORIZONS)
      horizon.append(new Option(`${value} year${value === 1 ? '' : 's'}`, String(value)))
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
    const stored = sessionStorage.getItem(KEY_STORAGE)
    if (stored) element<HTMLInputElement>('api-key').value = stored
  }

  /** Puts the state into the controls and the URL (replaceState: the back button leaves the page). */
  private reflectState(): void {
    element<HTMLSelectElement>('species').value = this.state.species
    element<HTMLSelectElement>('method').value = this.state.method
    element<HTMLSelectElement>('horizon').value = String(this.state.horizon)
    element<HTMLInputElement>('show-map').checked = this.state.mapCellKm !== null
    element<HTMLSelectElement>('cell-km').value = String(this.state.mapCellKm ?? 25)
    element<HTMLSelectElement>('cell-km').disabled = this.state.mapCellKm === null
    const climate = this.state.climate
    element<HTMLSelectElement>('period').value = climate?.period ?? TODAY_PERIOD
    const scenario = element<HTMLSelectElement>('scenario')
    scenario.value = climate?.scenario ?? ''
    scenario.disabled = climate === null
    const none = scenario.options[0] as HTMLOptionElement
    none.disabled = none.hidden = climate !== null
    const mapMode = element<HTMLSelectElement>('map-mode')
    mapMode.value = this.state.mapMode
    mapMode.disabled = climate === null || this.state.mapCellKm === null
    const change = mapMode.options[1] as HTMLOptionElement
    change.disabled = climate === null
    element('climate-caveat').textContent = climate ? FUTURE_CAVEAT : TODAY_CAVEAT
    element('climate-caveat').dataset.kind = climate ? 'future' : 'today'
    const under = climate ? `, ${climateLabel(climate)}` : ''
    element('factor-climate').textContent = under
    element('ranking-climate').textContent = under
    element('differential-climate').textContent = climate ? ` (${climateLabel(climate)})` : ''
    const point = this.state.point
    element<HTMLInputElement>('latitude').value = point ? String(roundCoordinate(point.latitude)) : ''
    element<HTMLInputElement>('longitude').value = point ? String(roundCoordinate(point.longitude)) : ''
    for (const panel of PANELS) {
      const selected = panel === this.state.panel
      element(`tab-${panel}`).setAttribute('aria-selected', String(selected))
      element(`tab-${panel}`).tabIndex = selected ? 0 : -1
      element(`panel-${panel}`).hidden = !selected
    }
    element('factor-method').textContent = METHOD_LABELS[this.state.method].toLowerCase()
    element('factor-horizon').textContent = String(this.state.horizon)
    element('ranking-method').textContent = METHOD_LABELS[this.state.method].toLowerCase()
    element('ranking-horizon').textContent = String(this.state.horizon)
    this.plan.reflect()
    history.replaceState(null, '', `${location.pathname}${serializeViewState(this.state)}`)
  }

  private update(change: Partial<ViewState>): ViewState {
    const before = this.state
    this.state = { ...this.state, ...change }
    this.reflectState()
    return before
  }

  private wireControls(): void {
    element<HTMLFormElement>('controls').addEventListener('submit', (event) => event.preventDefault())
    element<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const key = element<HTMLInputElement>('api-key').value.trim()
      if (key) sessionStorage.setItem(KEY_STORAGE, key)
      else sessionStorage.removeItem(KEY_STORAGE)
      this.coverageShown = false
      this.start()
    })
    element<HTMLFormElement>('spore-form').addEventListener('submit', (event) => {
      event.preventDefault()
      void this.requestSporeKey()
    })
    element<HTMLSelectElement>('species').addEventListener('change', (event) => {
      this.update({ species: (event.target as HTMLSelectElement).value })
      if (this.state.point) void this.loadComparison()
      if (this.state.panel === 'ranking') this.renderRanking()
      if (this.state.mapCellKm !== null) void this.loadSurvivalMap()
    })
    element<HTMLSelectElement>('method').addEventListener('change', (event) => {
      this.update({ method: (event.target as HTMLSelectElement).value as Method })
      this.renderComparison()
      this.refreshRankingAndMap()
      this.plan.contextChanged()
    })
    element<HTMLSelectElement>('horizon').addEventListener('change', (event) => {
      this.update({ horizon: Number((event.target as HTMLSelectElement).value) as Horizon })
      this.renderComparison()
      this.refreshRankingAndMap()
    })
    element<HTMLSelectElement>('period').addEventListener('change', (event) => {
      // A future period keeps the scenario chosen before, or opens with the default one.
      const period = (event.target as HTMLSelectElement).value
      this.chooseClimate(climateOf(period, this.state.climate?.scenario ?? null))
    })
    element<HTMLSelectElement>('scenario').addEventListener('change', (event) => {
      const period = this.state.climate?.period ?? null
      this.chooseClimate(climateOf(period, (event.target as HTMLSelectElement).value))
    })
    element<HTMLSelectElement>('map-mode').addEventListener('change', (event) => {
      const mode = (event.target as HTMLSelectElement).value as MapMode
      this.update({ mapMode: mapModeUnder(this.state.climate, mode) })
      this.drawSurvivalMap()
    })
    element<HTMLInputElement>('show-map').addEventListener('change', (event) => {
      const on = (event.target as HTMLInputElement).checked
      this.update({ mapCellKm: on ? (Number(element<HTMLSelectElement>('cell-km').value) as CellKm) : null })
      if (on) void this.loadSurvivalMap()
      else this.map.hideCells()
    })
    element<HTMLSelectElement>('cell-km').addEventListener('change', (event) => {
      this.update({ mapCellKm: Number((event.target as HTMLSelectElement).value) as CellKm })
      void this.loadSurvivalMap()
    })
    element<HTMLFormElement>('point-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const latitude = Number(element<HTMLInputElement>('latitude').value)
      const longitude = Number(element<HTMLInputElement>('longitude').value)
      this.pick({ latitude, longitude })
    })
    for (const panel of PANELS) {
      const tab = element(`tab-${panel}`)
      tab.addEventListener('click', () => this.openPanel(panel))
      // The tabs' keys: the arrows move to the next or the previous tab (around), Home and End to the ends.
      tab.addEventListener('keydown', (event) => {
        const at = PANELS.indexOf(panel)
        const to: Record<string, number> = {
          ArrowRight: (at + 1) % PANELS.length,
          ArrowLeft: (at - 1 + PANELS.length) % PANELS.length,
          Home: 0,
          End: PANELS.length - 1,
        }
        const index = to[event.key]
        if (index === undefined) return
        event.preventDefault()
        const next = PANELS[index] as Panel
        this.openPanel(next)
        element(`tab-${next}`).focus()
      })
    }
    element('download-compare').addEventListener('click', () => this.downloadComparison())
    element('download-ranking').addEventListener('click', () => this.downloadRanking())
    let pending = 0
    new ResizeObserver(() => {
      cancelAnimationFrame(pending)
      pending = requestAnimationFrame(() => {
        this.map.resize()
        this.renderComparison()
        this.renderRanking()
        this.plan.render()
      })
    }).observe(element('side'))
  }

  /** A new climate: the comparison, the ranking and the map are asked for again under it. */
  private chooseClimate(climate: Climate | null): void {
    if (sameClimate(climate, this.state.climate)) return
    this.update({ climate, mapMode: mapModeUnder(climate, this.state.mapMode) })
    this.renderComparison()
    this.renderRanking()
    if (this.state.point && this.hasKey) void this.loadComparison()
    this.refreshRankingAndMap()
    this.plan.contextChanged()
  }

  private refreshRankingAndMap(): void {
    if (this.state.panel === 'ranking' && this.state.point) void this.loadRanking()
    if (this.state.mapCellKm !== null) void this.loadSurvivalMap()
  }

  private openPanel(panel: Panel): void {
    if (panel === this.state.panel) return
    this.update({ panel })
    if (panel === 'ranking' && this.state.point) void this.loadRanking()
    this.plan.setShown(panel === 'plan')
  }

  private pick(point: Point): void {
    if (!Number.isFinite(point.latitude) || !Number.isFinite(point.longitude)) {
      this.map.say('Enter a latitude and a longitude in decimal degrees.', 'warning')
      return
    }
    this.update({
      point: { latitude: roundCoordinate(point.latitude), longitude: roundCoordinate(point.longitude) },
    })
    if (!this.hasKey) {
      this.start()
      return
    }
    void this.loadComparison()
    if (this.state.panel === 'ranking') void this.loadRanking()
    this.plan.pointChanged()
  }

  /** A file dropped on the map: a job's results go to the results layer, anything else is a stand to plan. */
  private async dropped(file: File): Promise<void> {
    const head = await file.slice(0, SNIFF_BYTES).text()
    if (looksLikeResults(head)) await this.results.loadFile(file)
    else this.plan.dropFile(file)
  }

  private async requestSporeKey(): Promise<void> {
    const result = element('spore-result')
    const form = element('spore-form')
    busy(form, true)
    try {
      const issued = await this.api.requestSporeKey(element<HTMLInputElement>('spore-email').value.trim())
      sessionStorage.setItem(KEY_STORAGE, issued.key)
      element<HTMLInputElement>('api-key').value = issued.key
      result.textContent = `Your ${issued.tier} key, shown once — copy it somewhere safe: ${issued.key}`
      this.coverageShown = false
      this.start()
    } catch (error) {
      result.textContent = error instanceof ExplorerApiError ? error.message : 'The key could not be issued.'
    } finally {
      busy(form, false)
    }
  }

  private showQuota(quota: Quota): void {
    const text =
      quota.limit === null
        ? 'Unlimited requests'
        : `Requests left today: ${(quota.remaining ?? 0).toLocaleString('en-US')} of ${quota.limit.toLocaleString('en-US')}`
    element('quota').textContent = text
  }

  // ----- loads -----

  private async loadCoverage(): Promise<void> {
    if (this.coverageShown) return
    const asked = ++this.asked.coverage
    const region = element('map-pane')
    busy(region, true)
    try {
      const { data } = await this.api.query(ExplorerCoverageDocument, {})
      if (asked !== this.asked.coverage || !data.coverage) return
      this.map.showCoverage(data.coverage.geojson as GeoJSON.GeoJsonObject)
      this.coverageShown = true
    } catch (error) {
      if (asked === this.asked.coverage) this.reportFailure(error)
    } finally {
      if (asked === this.asked.coverage) busy(region, false)
    }
  }

  private async loadComparison(): Promise<void> {
    const point = this.state.point
    if (!point) return
    const asked = ++this.asked.compare
    const panel = element('panel-compare')
    const climate = this.state.climate
    this.map.showPoint(point)
    this.map.say(null)
    busy(panel, true)
    try {
      const { answer, errors, model } = await this.askComparison(point, climate)
      if (asked !== this.asked.compare) return
      this.answer = answer
      if (!this.answer) {
        const error = errors[0]
        this.map.say(
          error ? messageFor(error, this.data.searchRadiusKm) : 'No answer for this point.',
          'warning',
        )
      } else {
        this.map.showMatch(this.answer.comparison.site)
        element('model-version').textContent = `Model ${model.series} ${model.version} (${model.codename})`
      }
      this.renderComparison()
    } catch (error) {
      if (asked === this.asked.compare) this.reportFailure(error)
    } finally {
      if (asked === this.asked.compare) busy(panel, false)
    }
  }

  /** Today's climate asks as it always has; a future one asks for today's survival beside it, in one request. */
  private async askComparison(point: Point, climate: Climate | null) {
    const today = { latitude: point.latitude, longitude: point.longitude, speciesCode: this.state.species }
    if (!climate) {
      const { data, errors } = await this.api.query(ExplorerCompareDocument, { input: today })
      const comparison = data.compareMethods
      const answer: ComparisonAnswer | null = comparison
        ? { comparison, climate, projection: null, today: null }
        : null
      return { answer, errors, model: data.model }
    }
    const { data, errors } = await this.api.query(ExplorerClimateCompareDocument, {
      input: { ...today, climate },
      today,
    })
    const comparison = data.compareMethods
    const answer: ComparisonAnswer | null =
      comparison && data.today
        ? { comparison, climate, projection: comparison.climate ?? null, today: data.today }
        : null
    return { answer, errors, model: data.model }
  }

  private async loadRanking(): Promise<void> {
    const point = this.state.point
    if (!point) return
    const asked = ++this.asked.ranking
    const panel = element('panel-ranking')
    const climate = this.state.climate
    busy(panel, true)
    try {
      const { data, errors } = await this.api.query(ExplorerRankingDocument, {
        latitude: point.latitude,
        longitude: point.longitude,
        plantingMethod: GRAPHQL_METHOD[this.state.method],
        horizon: this.state.horizon,
        climate,
      })
      if (asked !== this.asked.ranking) return
      const ranking = data.speciesRanking
      this.rankingClimate = climate
      const note = element('ranking-climate-note')
      note.hidden = !(climate && ranking?.climate)
      note.textContent =
        climate && ranking?.climate
          ? climateNote(climate, ranking.climate.dataVersion, ranking.climate.note)
          : ''
      this.ranking =
        ranking?.ranking.map((entry) => ({
          rank: entry.rank,
          code: entry.species.code,
          name: entry.species.commonName,
          survival: entry.survivalProbability,
          nativeRange: entry.nativeRange,
          topFactor: entry.topFactor.factor,
        })) ?? null
      if (!ranking) {
        const error = errors[0]
        this.map.say(
          error ? messageFor(error, this.data.searchRadiusKm) : 'No answer for this point.',
          'warning',
        )
      }
      this.renderRanking()
    } catch (error) {
      if (asked === this.asked.ranking) this.reportFailure(error)
    } finally {
      if (asked === this.asked.ranking) busy(panel, false)
    }
  }

  private async loadSurvivalMap(): Promise<void> {
    const cellKm = this.state.mapCellKm
    if (cellKm === null || !this.hasKey) return
    const asked = ++this.asked.survivalMap
    const region = element('map-pane')
    busy(region, true)
    try {
      const { data, errors } = await this.api.query(ExplorerSurvivalMapDocument, {
        speciesCode: this.state.species,
        plantingMethod: GRAPHQL_METHOD[this.state.method],
        horizon: this.state.horizon,
        cellKm,
        climate: this.state.climate,
      })
      if (asked !== this.asked.survivalMap) return
      this.survivalMap = data.survivalMap ?? null
      if (!this.survivalMap) {
        const error = errors[0]
        this.map.hideCells()
        this.map.say(
          error ? messageFor(error, this.data.searchRadiusKm) : 'The survival map is not available.',
          'warning',
        )
        return
      }
      this.drawSurvivalMap()
    } catch (error) {
      if (asked === this.asked.survivalMap) this.reportFailure(error)
    } finally {
      if (asked === this.asked.survivalMap) busy(region, false)
    }
  }

  /** The last survival map answered, as survival or (under its future climate) as change from today. */
  private drawSurvivalMap(): void {
    const survival = this.survivalMap
    if (!survival || this.state.mapCellKm === null) return
    const mapped = survival.climate ? climateOf(survival.climate.period, survival.climate.scenario) : null
    const mode = mapModeUnder(mapped, this.state.mapMode)
    const what = `${survival.species.commonName}, ${METHOD_LABELS[this.state.method].toLowerCase()}`
    const label =
      mode === 'change'
        ? `${what}, ${survival.horizonYears} years: change from today to ${climateLabel(mapped)}, percentage points`
        : `${what}: mean survival at ${survival.horizonYears} years${mapped ? `, ${climateLabel(mapped)}` : ''}`
    this.map.showCells(survival.cells, { mode, label, note: mapped ? MAP_FUTURE_NOTE : null })
  }

  private reportFailure(error: unknown): void {
    const text =
      error instanceof ExplorerApiError
        ? messageFor(error, this.data.searchRadiusKm)
        : 'The API could not be reached. Check your connection and try again.'
    this.map.say(text, 'warning')
  }

  // ----- rendering -----

  private renderComparison(): void {
    const survival = element('survival-chart')
    const factors = element('factor-chart')
    const differential = element('differential-body')
    const attributes = element('site-attributes')
    const sum = element('factor-sum')
    const downloadButton = element<HTMLButtonElement>('download-compare')
    const answer = this.answer
    downloadButton.disabled = !answer
    this.renderClimate()
    if (!answer) {
      survival.replaceChildren(placeholder('Choose a forested point on the map to compare planting methods.'))
      factors.replaceChildren()
      differential.replaceChildren(...HORIZONS.map((years) => tableRow([String(years), '—', '—', '—'])))
      attributes.replaceChildren()
      sum.textContent = ''
      element('site-summary').textContent = ''
      return
    }
    const { comparison, climate, projection, today } = answer
    const { site } = comparison
    element('site-summary').textContent =
      `${comparison.species.commonName} at ${site.latitude.toFixed(4)}, ${site.longitude.toFixed(4)}: matched site ${site.siteId}, ${site.matchDistanceKm.toFixed(2)} km away`
    survival.replaceChildren(
      survivalChart(
        comparison,
        this.state.horizon,
        chartWidth(survival),
        chartHeight(survival),
        climate && today ? { climate, today } : null,
      ),
    )
    differential.replaceChildren(
      ...comparison.methodDifferential.map((row) =>
        tableRow([
          String(row.horizonYears),
          percent(row.manual),
          percent(row.droneSeeded),
          `${row.difference >= 0 ? '+' : '−'}${(Math.abs(row.difference) * 100).toFixed(1)} pp`,
        ]),
      ),
    )
    const horizons = this.state.method === 'manual' ? comparison.manual : comparison.droneSeeded
    const prediction =
      horizons.find((h) => h.horizonYears === this.state.horizon) ?? horizons[horizons.length - 1]
    if (prediction) {
      factors.replaceChildren(factorChart(prediction, chartWidth(factors), chartHeight(factors)))
      const total = prediction.allFactors.reduce((s, f) => s + f.contribution, 0)
      sum.textContent = `Baseline ${prediction.baselineLogOdds.toFixed(2)} + contributions ${total >= 0 ? '+' : '−'}${Math.abs(total).toFixed(2)} = log-odds ${prediction.logOdds.toFixed(2)} → survival ${percent(prediction.survivalProbability)}`
    }
    // Under a future climate, the attributes it changes read "today → future".
    const future =
      climate && projection ? { label: periodLabel(climate.period), ...projection.projected } : null
    const attributeRows = SITE_ATTRIBUTES.map(([key, label, format]): [string, string] => {
      const now = format(site[key] as never)
      const then = future && PROJECTED[key]?.(future)
      return [label, then ? `${now} → ${then} (${future.label})` : now]
    })
    if (future)
      attributeRows.push([
        `Climate-equivalent elevation, ${future.label}`,
        `${Math.round(future.thermalElevationM)} m`,
      ])
    attributes.replaceChildren(
      ...attributeRows.flatMap(([label, value]) => {
        const dt = document.createElement('dt')
        dt.textContent = label
        const dd = document.createElement('dd')
        dd.textContent = value
        return [dt, dd]
      }),
    )
  }

  /**
   * Under a future climate: survival today and in the future for both methods at each horizon, with
   * the change, then the climate data's note and what the climate does at the site. Both show as soon
   * as a future is chosen (with dashes, and an empty note of reserved height), so the answer moves little.
   */
  private renderClimate(): void {
    const table = element('climate-table')
    const note = element('climate-note')
    const climate = this.state.climate
    table.hidden = note.hidden = climate === null
    if (!climate) return
    element('climate-table-label').textContent = climateLabel(climate)
    element('climate-table-future').textContent = periodLabel(climate.period)
    const answer = this.answer
    const current = answer && sameClimate(answer.climate, climate) ? answer : null
    const projection = current?.projection
    note.replaceChildren(
      ...(projection
        ? [
            paragraph(climateNote(climate, projection.dataVersion, projection.note)),
            paragraph(deltasSentence(projection.deltas)),
          ]
        : [paragraph(`${climateLabel(climate)}: ${FUTURE_CAVEAT}`)]),
    )
    element('climate-body').replaceChildren(
      ...HORIZONS.flatMap((years) =>
        METHODS.map((method) => {
          const label = method === 'manual' ? 'Hand' : 'Drone'
          const futureRows =
            method === 'manual' ? current?.comparison.manual : current?.comparison.droneSeeded
          const todayRows = method === 'manual' ? current?.today?.manual : current?.today?.droneSeeded
          const future = futureRows?.find((row) => row.horizonYears === years)?.survivalProbability
          const today = todayRows?.find((row) => row.horizonYears === years)?.survivalProbability
          if (future === undefined || today === undefined)
            return tableRow([String(years), label, '—', '—', '—'])
          return tableRow([String(years), label, percent(today), percent(future), points(future - today)])
        }),
      ),
    )
  }

  private renderRanking(): void {
    const chart = element('ranking-chart')
    const downloadButton = element<HTMLButtonElement>('download-ranking')
    downloadButton.disabled = !this.ranking
    if (!this.ranking) {
      chart.replaceChildren(placeholder('Choose a forested point on the map to rank the species there.'))
      return
    }
    chart.replaceChildren(rankingChart(this.ranking, chartWidth(chart), chartHeight(chart)))
    const chosen = this.ranking.find((row) => row.code === this.state.species)
    const climate = this.rankingClimate
    element('ranking-note').textContent = chosen
      ? `${chosen.name} ranks ${chosen.rank} of ${this.ranking.length} here${climate ? ` in ${climateLabel(climate)}` : ''}. † marks species outside their native range.`
      : '† marks species outside their native range.'
  }

  // ----- CSV -----

  private pointLabel(): string {
    const point = this.state.point
    return point ? `${point.latitude.toFixed(5)}_${point.longitude.toFixed(5)}` : 'no-point'
  }

  /** Under a future climate, the CSV adds the climate and today's survival as its last columns. */
  private downloadComparison(): void {
    const answer = this.answer
    if (!answer) return
    const { comparison: c, climate, today } = answer
    const todayAt = (rows: TodayBeside['manual'] | undefined, years: number) =>
      rows?.find((row) => row.horizonYears === years)?.survivalProbability
    const rows: CsvCell[][] = c.methodDifferential.map((row) => [
      c.site.latitude,
      c.site.longitude,
      c.site.matchedLatitude,
      c.site.matchedLongitude,
      c.site.matchDistanceKm,
      c.species.code,
      row.horizonYears,
      row.manual,
      row.droneSeeded,
      row.difference,
      ...(climate
        ? [
            climate.period,
            climate.scenario,
            todayAt(today?.manual, row.horizonYears),
            todayAt(today?.droneSeeded, row.horizonYears),
          ]
        : []),
    ])
    const climateName = climate ? `-${climate.period}-${climate.scenario}` : ''
    download(
      `survival-comparison-${c.species.code}${climateName}-${this.pointLabel()}.csv`,
      toCsv(
        [
          'latitude',
          'longitude',
          'matched_latitude',
          'matched_longitude',
          'match_distance_km',
          'species_code',
          'horizon_years',
          'manual_survival',
          'drone_seeded_survival',
          'difference',
          ...(climate
            ? ['climate_period', 'climate_scenario', 'manual_survival_today', 'drone_seeded_survival_today']
            : []),
        ],
        rows,
      ),
    )
  }

  private downloadRanking(): void {
    const ranking = this.ranking
    const point = this.state.point
    const climate = this.rankingClimate
    if (!ranking || !point) return
    const climateName = climate ? `-${climate.period}-${climate.scenario}` : ''
    download(
      `species-ranking-${this.state.method}-${this.state.horizon}y${climateName}-${this.pointLabel()}.csv`,
      toCsv(
        [
          'rank',
          'species_code',
          'species_common_name',
          'survival_probability',
          'native_range',
          'top_factor',
          'latitude',
          'longitude',
          'planting_method',
          'horizon_years',
          ...(climate ? ['climate_period', 'climate_scenario'] : []),
        ],
        ranking.map((row) => [
          row.rank,
          row.code,
          row.name,
          row.survival,
          row.nativeRange,
          row.topFactor,
          point.latitude,
          point.longitude,
          this.state.method,
          this.state.horizon,
          ...(climate ? [climate.period, climate.scenario] : []),
        ]),
      ),
    )
  }
}

function tableRow(cells: readonly string[]): HTMLTableRowElement {
  const tr = document.createElement('tr')
  for (const text of cells) {
    const td = document.createElement('td')
    td.textContent = text
    tr.append(td)
  }
  return tr
}

function paragraph(text: string): HTMLParagraphElement {
  const p = document.createElement('p')
  p.textContent = text
  return p
}

function placeholder(text: string): HTMLElement {
  const p = document.createElement('p')
  p.className = 'placeholder'
  p.textContent = text
  return p
}

new Explorer(readPageData())
