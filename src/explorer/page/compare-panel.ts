import { type Comparison, factorChart, survivalChart, type TodayBeside } from './charts.ts'
import { type ComparisonAnswer, renderClimateSection } from './compare-climate.ts'
import { type CsvCell, climateFileLabel, downloadCsv, pointFileLabel, toCsv } from './csv.ts'
import { busy, chartHeight, chartWidth, element, placeholder, tableRow } from './dom.ts'
import { climateLabel, METHOD_LABELS, modelName, percent, periodLabel } from './format.ts'
import {
  type ComparisonInput,
  ExplorerClimateCompareDocument,
  type ExplorerClimateFragment,
  ExplorerCompareDocument,
} from './generated/operations.ts'
import type { PanelHost } from './host.ts'
import { compareReport } from './report-bodies.ts'
import { ReportDownload } from './report-download.ts'
import { type Climate, HORIZONS, type Point, pinned, sameClimate, type ViewState } from './state.ts'
import { signed } from './survey-data.ts'

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

/** The site attributes a future climate changes, as the model evaluated them there. */
const PROJECTED: Partial<
  Record<keyof Comparison['site'], (p: ExplorerClimateFragment['projected']) => string>
> = {
  annualPrecipMm: (p) => `${Math.round(p.annualPrecipMm)} mm`,
  summerWaterDeficitMm: (p) => `${Math.round(p.summerWaterDeficitMm)} mm`,
  growingSeasonFrostDays: (p) => p.growingSeasonFrostDays.toFixed(1),
}

/**
 * The Compare methods tab: survival of the chosen species at the chosen point by planting method at
 * 1, 3 and 5 years (beside today's under a future climate), the difference between the methods, every
 * factor at the chosen horizon, the matched site's attributes, and its CSV.
 */
export class ComparePanel {
  private answer: ComparisonAnswer | null = null
  /** The input the answer shown was asked with (its report asks the same). */
  private input: ComparisonInput | null = null
  /** Each load's number: an answer that arrives after a newer question is dropped. */
  private asked = 0
  private readonly report: ReportDownload

  constructor(private readonly host: PanelHost) {
    element('download-compare').addEventListener('click', () => this.download())
    this.report = new ReportDownload(host, 'report-compare', 'report-compare-status', () => {
      if (!this.answer || !this.input) return null
      const { comparison, climate } = this.answer
      return {
        report: compareReport(this.input, comparison.model.version),
        label: `${comparison.species.code}${climateFileLabel(climate)}-${pointFileLabel(comparison.site)}`,
      }
    })
  }

  /** The headings that name the method, the horizon and the climate chosen. */
  reflect(state: ViewState): void {
    const climate = state.climate
    element('factor-climate').textContent = climate ? `, ${climateLabel(climate)}` : ''
    element('differential-climate').textContent = climate ? ` (${climateLabel(climate)})` : ''
    element('factor-method').textContent = METHOD_LABELS[state.method].toLowerCase()
    element('factor-horizon').textContent = String(state.horizon)
  }

  async load(): Promise<void> {
    const point = this.host.view().point
    if (!point) return
    const asked = ++this.asked
    const panel = element('panel-compare')
    const climate = this.host.view().climate
    this.host.map.showPoint(point)
    this.host.map.say(null)
    busy(panel, true)
    try {
      const { answer, errors, input } = await this.ask(point, climate)
      if (asked !== this.asked) return
      this.answer = answer
      this.input = answer ? input : null
      const named = element('model-version')
      if (!this.answer) {
        const error = errors[0]
        this.host.map.say(error ? this.host.messageFor(error) : 'No answer for this point.', 'warning')
        named.textContent = ''
        delete named.dataset.version
      } else {
        this.host.map.showMatch(this.answer.comparison.site)
        // The version that answered, as the answer names it (not the root's public current version).
        const model = this.answer.comparison.model
        named.textContent = `Model ${modelName(model)}`
        named.dataset.version = model.version
      }
      this.render()
    } catch (error) {
      if (asked === this.asked) this.host.map.say(this.host.messageFor(error), 'warning')
    } finally {
      if (asked === this.asked) busy(panel, false)
    }
  }

  /** Today's climate asks as it always has; a future one asks for today's survival beside it, in one request. */
  private async ask(point: Point, climate: Climate | null) {
    const today = {
      latitude: point.latitude,
      longitude: point.longitude,
      speciesCode: this.host.view().species,
      ...pinned(this.host.view()),
    }
    if (!climate) {
      const { data, errors } = await this.host.api.query(ExplorerCompareDocument, { input: today })
      const comparison = data.compareMethods
      const answer: ComparisonAnswer | null = comparison
        ? { comparison, climate, projection: null, today: null }
        : null
      return { answer, errors, input: today }
    }
    const input = { ...today, climate }
    const { data, errors } = await this.host.api.query(ExplorerClimateCompareDocument, { input, today })
    const comparison = data.compareMethods
    const answer: ComparisonAnswer | null =
      comparison && data.today
        ? { comparison, climate, projection: comparison.climate ?? null, today: data.today }
        : null
    return { answer, errors, input }
  }

  /** Draws the answer shown (again, at the panel's width), or says what to do while there is none. */
  render(): void {
    const { horizon, method, climate: chosen } = this.host.view()
    const survival = element('survival-chart')
    const factors = element('factor-chart')
    const differential = element('differential-body')
    const attributes = element('site-attributes')
    const sum = element('factor-sum')
    const answer = this.answer
    element<HTMLButtonElement>('download-compare').disabled = !answer
    this.report.reflect()
    renderClimateSection(chosen, answer && sameClimate(answer.climate, chosen) ? answer : null)
    if (!answer) {
      survival.replaceChildren(placeholder('Choose a forested point on the map to compare planting methods.'))
      factors.replaceChildren()
      differential.replaceChildren(...HORIZONS.map((years) => tableRow([String(years), '—', '—', '—'])))
      attributes.replaceChildren()
      sum.textContent = ''
      element('factor-calibration').hidden = true
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
        horizon,
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
    const horizons = method === 'manual' ? comparison.manual : comparison.droneSeeded
    const prediction = horizons.find((h) => h.horizonYears === horizon) ?? horizons[horizons.length - 1]
    const shift = element('factor-calibration')
    shift.hidden = !prediction?.calibration
    shift.textContent = ''
    if (prediction) {
      factors.replaceChildren(factorChart(prediction, chartWidth(factors), chartHeight(factors)))
      const total = prediction.allFactors.reduce((s, f) => s + f.contribution, 0)
      sum.textContent = `Baseline ${prediction.baselineLogOdds.toFixed(2)} + contributions ${total >= 0 ? '+' : '−'}${Math.abs(total).toFixed(2)} = log-odds ${prediction.logOdds.toFixed(2)} → survival ${percent(prediction.survivalProbability)}`
      const calibration = prediction.calibration
      if (calibration)
        shift.textContent = `The baseline includes the calibration’s shift of ${signed(calibration.offset)} on the logit scale for ${comparison.species.commonName}, ${METHOD_LABELS[method].toLowerCase()} (${percent(calibration.intervalLevel, 0)} interval ${signed(calibration.interval[0] ?? 0)} to ${signed(calibration.interval[1] ?? 0)}), ${calibration.plots > 0 ? `from ${calibration.plots.toLocaleString('en-US')} surveyed plots` : 'the method’s pooled mean: no surveyed plots of it'}.`
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

  /** Under a future climate, the CSV adds the climate and today's survival as its last columns. */
  private download(): void {
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
    downloadCsv(
      `survival-comparison-${c.species.code}${climateFileLabel(climate)}-${pointFileLabel(this.host.view().point)}.csv`,
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
}
