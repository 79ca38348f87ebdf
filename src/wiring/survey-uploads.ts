import type { Config } from '../config/config.ts'
import type { Database } from '../db/connect.ts'
import { surveyUploadStore, surveyUploadTicketStore } from '../db/survey-ports.ts'
import type { PredictionService } from '../domain/prediction-service.ts'
import { SurveyUploadService } from '../domain/surveys/survey-upload-service.ts'
import { SurveyUploadTickets } from '../domain/surveys/survey-upload-tickets.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import { surveyFileFormats } from '../survey-files/survey-upload-rows.ts'

/** How often each server fails the uploads a stopped server left, and removes expired uploads and tickets. */
const SWEEP_MS = 60_000

/** Bulk survey uploads, their tickets, and the minute sweep that cleans up after them. */
export function wireSurveyUploads(deps: {
  config: Pick<Config, 'DB_QUERY_TIMEOUT_MS'> & { ADDRESS_HASH_KEY: string }
  database: Database
  predictions: PredictionService
  metrics: Metrics
  logger: Logger
  now?: () => Date
}) {
  const { config, database, predictions, metrics, logger } = deps
  const uploads = new SurveyUploadService(
    surveyUploadStore(database.sql, config, metrics),
    surveyFileFormats,
    predictions,
    config.ADDRESS_HASH_KEY,
    deps.now,
  )
  const tickets = new SurveyUploadTickets(surveyUploadTicketStore(database.sql, config, metrics), deps.now)
  const sweep = async () => {
    try {
      const { stalled, expired } = await uploads.sweep()
      const expiredTickets = await tickets.sweep()
      if (stalled > 0 || expired > 0 || expiredTickets > 0)
        logger.info({ stalled, expired, expiredTickets }, 'survey uploads swept')
    } catch (error) {
      logger.warn({ err: error }, 'survey upload sweep failed; next in a minute')
    }
  }
  const first = sweep()
  const timer = setInterval(() => void sweep(), SWEEP_MS)
  timer.unref()
  return {
    uploads,
    tickets,
    close: async () => {
      clearInterval(timer)
      await first
    },
  }
}
