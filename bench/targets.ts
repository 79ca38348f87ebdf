/** The production-readiness issue's targets, checked against a bench run; a miss is reported, never an error. */
import type { BatchStatements } from './runner.ts'

/** Server ÷ baseline ratios (rps: at least; latency: at most) and the server's RSS ceiling. */
export const THRESHOLDS = {
  restPredictRps: 1.0,
  restPredictP99: 1.5,
  graphqlPredictRps: 0.8,
  batch500MedianLatency: 1.3,
  rssMb: 250,
} as const

const times = (ratio: number) => `${ratio.toFixed(1)}×`

export interface TargetCheck {
  id: string
  target: string
  measured: number | string | null
  /** null: could not be measured in this run. */
  pass: boolean | null
}

/** What the checks read of a scenario's report: its server / baseline ratios. */
interface ScenarioRatios {
  id: string
  ratios: { rps: number; p50: number; p99: number }
}

/** The targets of whichever scenarios ran. */
export function checkTargets(
  reports: readonly ScenarioRatios[],
  statements: BatchStatements | null,
  serverRss: number,
): TargetCheck[] {
  const byId = new Map(reports.map((report) => [report.id, report]))
  const targets: TargetCheck[] = []
  const predict = byId.get('rest_predict')
  if (predict) {
    targets.push(
      {
        id: 'rest_predict_rps',
        target: `REST /v1/predict rps ≥ ${times(THRESHOLDS.restPredictRps)} baseline`,
        measured: predict.ratios.rps,
        pass: predict.ratios.rps >= THRESHOLDS.restPredictRps,
      },
      {
        id: 'rest_predict_p99',
        target: `REST /v1/predict p99 ≤ ${times(THRESHOLDS.restPredictP99)} baseline`,
        measured: predict.ratios.p99,
        pass: predict.ratios.p99 <= THRESHOLDS.restPredictP99,
      },
    )
  }
  const graphqlPredict = byId.get('graphql_predict')
  if (graphqlPredict) {
    targets.push({
      id: 'graphql_predict_rps',
      target: `GraphQL single predict rps ≥ ${times(THRESHOLDS.graphqlPredictRps)} baseline /v1/predict`,
      measured: graphqlPredict.ratios.rps,
      pass: graphqlPredict.ratios.rps >= THRESHOLDS.graphqlPredictRps,
    })
  }
  const batch = byId.get('rest_batch_500')
  if (batch) {
    targets.push({
      id: 'batch_500_latency',
      target: `500-site batch median latency ≤ ${times(THRESHOLDS.batch500MedianLatency)} baseline`,
      measured: batch.ratios.p50,
      pass: batch.ratios.p50 <= THRESHOLDS.batch500MedianLatency,
    })
  }
  if (statements) {
    targets.push({
      id: 'batch_500_one_statement',
      target: '500-site batch answered with one SQL statement',
      measured: statements.verified ? (statements.statements ?? null) : statements.note,
      pass: statements.verified ? statements.statements === 1 : null,
    })
  }
  targets.push({
    id: 'rss',
    target: `server RSS ≤ ${THRESHOLDS.rssMb} MB under load`,
    measured: serverRss,
    pass: serverRss <= THRESHOLDS.rssMb,
  })
  return targets
}
