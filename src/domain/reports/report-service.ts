import type { MultiPolygon, Polygon } from 'geojson'
import type { StandInput } from '../input-rules.ts'
import type { JobResultsSummary } from '../jobs/job-results-summary.ts'
import type { JobView } from '../jobs/job-service.ts'
import type { SiteDataOrigins } from '../ports/site-data.ts'
import type { Comparison, SpeciesRanking } from '../prediction-types.ts'
import type { StockingPlan } from '../stocking/stocking-types.ts'
import type { VersionedReport } from '../surveys/survey-service.ts'
import { comparisonReport } from './comparison-report.ts'
import { jobReport } from './job-report.ts'
import { stockingPlanReport } from './plan-report.ts'
import { rankingReport } from './ranking-report.ts'
import type { ReportDocument, ReportLanguage } from './report-document.ts'
import { messagesFor } from './report-messages.ts'
import { ReportNumbers } from './report-numbers.ts'
import type { ReportRequest } from './report-request.ts'
import { surveyReport } from './survey-report.ts'

/** Draws a report (src/report-files: a PDF). */
export type RenderReport = (document: ReportDocument) => Promise<Uint8Array>

export interface ReportFile {
  bytes: Uint8Array
  fileName: string
  language: ReportLanguage
}

/** A stand's `properties.name`, when the stand was sent as a GeoJSON Feature with one. */
export function standNameOf(body: unknown): string | null {
  const stand = (body as { stand?: unknown } | null)?.stand as
    | { type?: unknown; properties?: { name?: unknown } | null }
    | null
    | undefined
  const name = stand?.type === 'Feature' ? stand.properties?.name : undefined
  return typeof name === 'string' && name.trim() !== '' ? name : null
}

function geometryOf(stand: StandInput | null | undefined): Polygon | MultiPolygon | null {
  if (!stand) return null
  return stand.type === 'Feature' ? stand.geometry : stand
}

/**
 * Reports of answers (docs/reports.md): what each holds is decided here, from the answer the JSON is
 * made from; `render` draws it. Whether the data are synthetic comes from the answer's data version.
 */
export class ReportService {
  constructor(
    private readonly render: RenderReport,
    private readonly origins: SiteDataOrigins,
    /** When a report of something kept (a job, the surveys) is made: its time, printed and in the PDF. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  async stockingPlan(
    plan: StockingPlan,
    stand: StandInput | null,
    request: ReportRequest,
  ): Promise<ReportFile> {
    const context = await this.context(request, plan.dataVersion)
    const document = stockingPlanReport(
      plan,
      { stand: geometryOf(stand), standName: standNameOf(request.body) },
      request,
      context,
    )
    return this.file(document, 'stocking-plan')
  }

  async comparison(comparison: Comparison, request: ReportRequest): Promise<ReportFile> {
    const context = await this.context(request, comparison.site.dataVersion)
    return this.file(comparisonReport(comparison, request, context), 'method-comparison')
  }

  async ranking(ranking: SpeciesRanking, request: ReportRequest): Promise<ReportFile> {
    const context = await this.context(request, ranking.site.dataVersion)
    return this.file(rankingReport(ranking, request, context), 'species-ranking')
  }

  /**
   * A finished job's report, from its results summed (JobService.resultsSummary). Its data are
   * synthetic when any version its chunks were scored from is (or none is known).
   */
  async job(job: JobView, summary: JobResultsSummary, request: ReportRequest): Promise<ReportFile> {
    const synthetic =
      job.dataVersions.length === 0 ||
      (await Promise.all(job.dataVersions.map((version) => this.origins.synthetic(version)))).some(Boolean)
    const context = { ...(await this.context(request, null)), synthetic, now: this.now() }
    return this.file(jobReport(job, summary, request, context), 'job-report')
  }

  /** The survey check's report; `request.body` is its query as asked (filters and model_version). */
  async survey(
    report: VersionedReport,
    request: ReportRequest & { body: Readonly<Record<string, string>> },
  ): Promise<ReportFile> {
    // The surveys are the account's own: no site data version stands behind the report as a whole.
    const context = { ...(await this.context(request, null)), synthetic: false, now: this.now() }
    return this.file(surveyReport(report, request, context), 'survey-report')
  }

  private async context(request: ReportRequest, dataVersion: string | null) {
    return {
      text: messagesFor(request.language),
      numbers: new ReportNumbers(request.language),
      synthetic: dataVersion === null || (await this.origins.synthetic(dataVersion)),
    }
  }

  private async file(document: ReportDocument, name: string): Promise<ReportFile> {
    return { bytes: await this.render(document), fileName: `${name}.pdf`, language: document.language }
  }
}
