import { type RankedRow, rankingChart } from './charts.ts'
import { climateFileLabel, downloadCsv, pointFileLabel, toCsv } from './csv.ts'
import { busy, chartHeight, chartWidth, element, placeholder } from './dom.ts'
import { climateLabel, climateNote, METHOD_LABELS, modelName } from './format.ts'
import { ExplorerRankingDocument, type ExplorerRankingQueryVariables } from './generated/operations.ts'
import type { PanelHost } from './host.ts'
import { rankReport } from './report-bodies.ts'
import { ReportDownload } from './report-download.ts'
import { type Climate, GRAPHQL_METHOD, pinned, type ViewState } from './state.ts'

/**
 * The Rank species tab: every species ranked by survival at the chosen point, method, horizon and
 * climate, those outside their native range marked, and its CSV.
 */
export class RankingPanel {
  private ranking: RankedRow[] | null = null
  /** The climate the ranking shown was asked for. */
  private climate: Climate | null = null
  /** The query the ranking shown was asked with, and the version that answered (its report asks the same). */
  private shown: { variables: ExplorerRankingQueryVariables; version: string } | null = null
  /** Each load's number: an answer that arrives after a newer question is dropped. */
  private asked = 0
  private readonly report: ReportDownload

  constructor(private readonly host: PanelHost) {
    element('download-ranking').addEventListener('click', () => this.download())
    this.report = new ReportDownload(host, 'report-ranking', 'report-ranking-status', () => {
      const shown = this.shown
      if (!this.ranking || !shown) return null
      const { variables } = shown
      return {
        report: rankReport(variables, shown.version),
        label: `${variables.plantingMethod.toLowerCase()}-${variables.horizon}y${climateFileLabel(this.climate)}-${pointFileLabel(variables)}`,
      }
    })
  }

  /** The heading that names the method, the horizon and the climate chosen. */
  reflect(state: ViewState): void {
    element('ranking-climate').textContent = state.climate ? `, ${climateLabel(state.climate)}` : ''
    element('ranking-method').textContent = METHOD_LABELS[state.method].toLowerCase()
    element('ranking-horizon').textContent = String(state.horizon)
  }

  async load(): Promise<void> {
    const view = this.host.view()
    const { point, method, horizon, climate } = view
    if (!point) return
    const asked = ++this.asked
    const panel = element('panel-ranking')
    busy(panel, true)
    try {
      const variables: ExplorerRankingQueryVariables = {
        latitude: point.latitude,
        longitude: point.longitude,
        plantingMethod: GRAPHQL_METHOD[method],
        horizon,
        climate,
        ...pinned(view),
      }
      const { data, errors } = await this.host.api.query(ExplorerRankingDocument, variables)
      if (asked !== this.asked) return
      const ranking = data.speciesRanking
      this.shown = ranking ? { variables, version: ranking.model.version } : null
      // The version that answered, as the answer names it.
      const named = element('ranking-model')
      named.textContent = ranking ? `Model ${modelName(ranking.model)}` : ''
      if (ranking) named.dataset.version = ranking.model.version
      else delete named.dataset.version
      this.climate = climate
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
        this.host.map.say(error ? this.host.messageFor(error) : 'No answer for this point.', 'warning')
      }
      this.render()
    } catch (error) {
      if (asked === this.asked) this.host.map.say(this.host.messageFor(error), 'warning')
    } finally {
      if (asked === this.asked) busy(panel, false)
    }
  }

  /** Draws the ranking shown (again, at the panel's width), or says what to do while there is none. */
  render(): void {
    const chart = element('ranking-chart')
    element<HTMLButtonElement>('download-ranking').disabled = !this.ranking
    this.report.reflect()
    if (!this.ranking) {
      chart.replaceChildren(placeholder('Choose a forested point on the map to rank the species there.'))
      return
    }
    chart.replaceChildren(rankingChart(this.ranking, chartWidth(chart), chartHeight(chart)))
    const chosen = this.ranking.find((row) => row.code === this.host.view().species)
    const climate = this.climate
    element('ranking-note').textContent = chosen
      ? `${chosen.name} ranks ${chosen.rank} of ${this.ranking.length} here${climate ? ` in ${climateLabel(climate)}` : ''}. † marks species outside their native range.`
      : '† marks species outside their native range.'
  }

  private download(): void {
    const ranking = this.ranking
    const { point, method, horizon } = this.host.view()
    const climate = this.climate
    if (!ranking || !point) return
    downloadCsv(
      `species-ranking-${method}-${horizon}y${climateFileLabel(climate)}-${pointFileLabel(point)}.csv`,
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
          method,
          horizon,
          ...(climate ? [climate.period, climate.scenario] : []),
        ]),
      ),
    )
  }
}
