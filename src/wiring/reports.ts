import type { Config } from '../config/config.ts'
import type { Database } from '../db/connect.ts'
import { siteVersionSources } from '../db/site-ports.ts'
import { ReportService } from '../domain/reports/report-service.ts'
import type { Metrics } from '../observability/metrics.ts'
import { SYNTHETIC_SOURCE } from '../seed/load.ts'

/**
 * Reports of answers: drawn as PDF by src/report-files, loaded on the first report (pdfkit and its
 * fonts cost nothing until then); a data version counts as synthetic when `npm run db:seed` made it.
 */
export function wireReports(options: {
  config: Pick<Config, 'DB_QUERY_TIMEOUT_MS'>
  database: Database
  metrics: Metrics
  /** The clock a report of a job or of the surveys is dated by. */
  now: () => Date
}): ReportService {
  const sources = siteVersionSources(options.database.reads, options.config, options.metrics)
  return new ReportService(
    async (document) => (await import('../report-files/pdf-report.ts')).renderPdfReport(document),
    {
      synthetic: async (version) => {
        const source = await sources.source(version)
        return source === null || source === SYNTHETIC_SOURCE
      },
    },
    options.now,
  )
}
