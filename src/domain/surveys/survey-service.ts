import { logit, sigmoid } from '../../stats/logistic.ts'
import { ApiError, apiError, invalidField } from '../errors.ts'
import { type Holder, holderActor } from '../holder-actor.ts'
import type { SurveyFilter, SurveyReportColumns, SurveyStore } from '../ports/surveys.ts'
import type { PredictionService } from '../prediction-service.ts'
import { fieldOfRefusal, predictSurveyPlots } from './plot-predictions.ts'
import {
  type CheckedSurveyPlot,
  checkSurveyPlot,
  SURVEY_PLOTS_BY_TIER,
  type SurveyPlot,
  type SurveyPlotInput,
} from './survey-plot.ts'
import { type SurveyReport, surveyStatistics } from './survey-statistics.ts'

/** Plots on one page of the list: 1 to 1,000, 100 unless asked. */
export const SURVEY_PAGE_MAX = 1000
export const SURVEY_PAGE_DEFAULT = 100

/** Who is writing: the account and tier of the admitted key, the key, and the client address. */
/** A holder writing surveys, and the tier that sets how many plots the account keeps. */
export interface SurveyWriter extends Holder {
  tierName: string
}

/** The cursor of a list page: the last plot's (plot_id, surveyed_on), base64url JSON. */
export function surveyCursor(plot: Pick<SurveyPlot, 'plotId' | 'surveyedOn'>): string {
  return Buffer.from(JSON.stringify([plot.plotId, plot.surveyedOn])).toString('base64url')
}

function readCursor(cursor: string): readonly [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      /^\d{4}-\d{2}-\d{2}$/.test(value[1])
    )
      return [value[0], value[1]]
  } catch {}
  throw invalidField('cursor', 'is not a cursor this list handed out')
}

/**
 * How a model version re-expresses the stored predictions (its parent's): a calibrated version moves
 * each species × method's logit by its offset; a base version moves nothing. The version is the one
 * named, else the account's default; invalid_model_version for one the account cannot use.
 */
export interface ReportVersions {
  shiftOf(
    accountId: string,
    version: string | undefined,
  ): Promise<{
    version: string
    offset: ((speciesCode: string, method: string) => number) | null
    /** Δ = r − r₀ of each treatment effect the version's surveys informed, by effect id. */
    effects?: ReadonlyMap<string, number>
  }>
}

/** A report, and the model version whose predictions it compares with. */
export interface VersionedReport {
  modelVersion: string | null
  report: SurveyReport | null
}

/**
 * The group's stored predictions moved by the version's offset on the logit scale, and a treated
 * plot's by each informed effect's Δ times its slope (./plot-predictions.ts).
 */
function shiftPredictions(
  group: SurveyReportColumns,
  offset: (speciesCode: string, method: string) => number,
  effects: ReadonlyMap<string, number> | undefined,
) {
  const delta = offset(group.speciesCode, group.plantingMethod)
  const slopes = effects && effects.size > 0 ? group.treatmentSlopes : undefined
  for (let i = 0; i < group.predicted.length; i++) {
    let moved = delta
    if (slopes)
      for (const [id, slope] of Object.entries(slopes[i] ?? {})) moved += slope * (effects?.get(id) ?? 0)
    group.predicted[i] = sigmoid(logit(group.predicted[i] as number) + moved)
  }
}

/**
 * Field surveys: an account's plots, each matched to its data site as a prediction is and kept with
 * the model's survival at its age, so the report compares without predicting again.
 */
export class SurveyService {
  constructor(
    private readonly store: SurveyStore,
    private readonly predictions: PredictionService,
    /** The server's secret (ADDRESS_HASH_KEY) that client addresses are hashed under. */
    private readonly addressHashKey: string,
    private readonly now: () => Date = () => new Date(),
    /** The versions a report can be asked for; without them, the predictions as stored. */
    private readonly versions: ReportVersions | null = null,
  ) {}

  /**
   * All or nothing: the first plot that breaks a rule, or that the prediction refuses, is reported
   * with its index and field, and nothing is kept. A plot sent twice in one call is kept as last sent.
   */
  async save(writer: SurveyWriter, inputs: readonly SurveyPlotInput[]): Promise<SurveyPlot[]> {
    const today = this.now()
    const checked = inputs.map((plot, index) => checkSurveyPlot(plot, index, today))
    const plots = await this.predicted(checked)
    const limit = SURVEY_PLOTS_BY_TIER[writer.tierName] ?? 0
    const kept = [...new Map(plots.map((plot) => [`${plot.plotId}\u0000${plot.surveyedOn}`, plot])).values()]
    const outcome = await this.store.save(writer.accountId, kept, limit, {
      accountId: writer.accountId,
      kind: 'survey.stored',
      actor: holderActor(this.addressHashKey, writer),
      details: { surveys: kept.length },
    })
    if (!outcome.saved)
      throw apiError('survey_limit_reached', { tier: writer.tierName, limit, wouldHold: outcome.wouldHold })
    return kept
  }

  private async predicted(checked: readonly CheckedSurveyPlot[]): Promise<SurveyPlot[]> {
    const outcomes = await predictSurveyPlots(this.predictions, checked, this.now())
    return outcomes.map((outcome) => {
      if (outcome.ok) return outcome.plot
      const { error, index } = outcome
      throw new ApiError(
        error.code,
        error.message,
        { ...error.details, index, field: fieldOfRefusal(error) },
        error.headers,
      )
    })
  }

  async page(
    accountId: string,
    filter: SurveyFilter,
    limit: number,
    cursor: string | null,
  ): Promise<{ plots: SurveyPlot[]; nextCursor: string | null }> {
    const after = cursor === null ? null : readCursor(cursor)
    const plots = await this.store.page(accountId, filter, limit + 1, after)
    const more = plots.length > limit
    const shown = more ? plots.slice(0, limit) : plots
    const last = shown.at(-1)
    return { plots: shown, nextCursor: more && last ? surveyCursor(last) : null }
  }

  /** Every survey of one plot of the account's; not_found when it has none (or the plot is another account's). */
  async plot(accountId: string, plotId: string): Promise<SurveyPlot[]> {
    const surveys = await this.store.plot(accountId, plotId)
    if (surveys.length === 0) throw apiError('not_found', { plot: plotId })
    return surveys
  }

  /**
   * Observed beside predicted over the account's plots that the filter keeps (./survey-statistics.ts);
   * null when it keeps none. The predictions were made when the plots were stored: nothing is predicted here.
   */
  async report(accountId: string, filter: SurveyFilter, modelVersion?: string): Promise<VersionedReport> {
    const shift = this.versions ? await this.versions.shiftOf(accountId, modelVersion) : null
    const plots = await this.store.reportPlots(accountId, filter)
    if (shift?.offset) for (const group of plots) shiftPredictions(group, shift.offset, shift.effects)
    return {
      modelVersion: shift?.version ?? null,
      report: plots.length === 0 ? null : surveyStatistics(plots),
    }
  }

  /** Deletes one plot (every survey of it), or with null every plot of the account; how many surveys went. */
  async remove(writer: Omit<SurveyWriter, 'tierName'>, plotId: string | null): Promise<number> {
    const removed = await this.store.remove(writer.accountId, plotId, {
      accountId: writer.accountId,
      kind: 'survey.deleted',
      actor: holderActor(this.addressHashKey, writer),
      details: { plot_id: plotId, all: plotId === null },
    })
    if (plotId !== null && removed === 0) throw apiError('not_found', { plot: plotId })
    return removed
  }
}
