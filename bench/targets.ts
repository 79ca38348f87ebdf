/** Issue 10's targets, checked against a bench run; a miss is reported, never an error. */
import type { BatchStatements } from './runner.ts'
import { PROCESS_LABELS, type ProcessName, type Reference } from './scenarios.ts'

/** Ratios of medians in the same run (rps: at least; latency: at most) and the server's RSS ceiling. */
export const THRESHOLDS = {
  restPredictRps: 1.1,
  restPredictP99: 1.2,
  graphqlPredictRps: 0.8,
  restBatchRps: 0.9,
  restBatchP50: 1.15,
  graphqlBatchRps: 0.6,
  redisAwayRps: 0.9,
  /** bench/baseline-server.ts must be at least as lean as the floor to be worth keeping. */
  baselineRps: 0.95,
  rssMb: 200,
} as const

export interface TargetCheck {
  id: string
  target: string
  measured: number | null
  detail: string
  /** null: could not be measured in this run. */
  pass: boolean | null
}

/** What the checks read of a scenario's report. */
interface ComparedScenario {
  id: string
  comparisons: readonly {
    of: ProcessName
    to: ProcessName
    ratios: { rps: number; p50: number; p99: number }
    figures: { of: { rps: number; p50: number; p99: number }; to: { rps: number; p50: number; p99: number } }
  }[]
}

interface RatioTarget {
  id: string
  scenario: string
  of: ProcessName
  /** 'reference': the floor, or baseline-server.ts when the floor is absent. */
  to: ProcessName | 'reference'
  metric: 'rps' | 'p50' | 'p99'
  bound: 'at least' | 'at most'
  threshold: number
  what: string
}

const RATIO_TARGETS: readonly RatioTarget[] = [
  {
    id: 'rest_predict_rps',
    scenario: 'rest_predict',
    of: 'server',
    to: 'reference',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.restPredictRps,
    what: 'REST /v1/predict rps',
  },
  {
    id: 'rest_predict_p99',
    scenario: 'rest_predict',
    of: 'server',
    to: 'reference',
    metric: 'p99',
    bound: 'at most',
    threshold: THRESHOLDS.restPredictP99,
    what: 'REST /v1/predict p99',
  },
  {
    id: 'graphql_predict_rps',
    scenario: 'graphql_predict',
    of: 'server',
    to: 'reference',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.graphqlPredictRps,
    what: 'GraphQL predict rps (vs REST predict)',
  },
  {
    id: 'rest_batch_rps',
    scenario: 'rest_batch_500',
    of: 'server',
    to: 'reference',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.restBatchRps,
    what: 'REST batch of 500 batches/s',
  },
  {
    id: 'rest_batch_p50',
    scenario: 'rest_batch_500',
    of: 'server',
    to: 'reference',
    metric: 'p50',
    bound: 'at most',
    threshold: THRESHOLDS.restBatchP50,
    what: 'REST batch of 500 p50',
  },
  {
    id: 'graphql_batch_rps',
    scenario: 'graphql_batch_500',
    of: 'server',
    to: 'reference',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.graphqlBatchRps,
    what: 'GraphQL predictBatch of 500 batches/s (vs REST batch)',
  },
  {
    id: 'redis_away_rps',
    scenario: 'rest_predict_redis_away',
    of: 'server_redis_away',
    to: 'server',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.redisAwayRps,
    what: 'REST /v1/predict rps with Redis away',
  },
  {
    id: 'baseline_predict_rps',
    scenario: 'rest_predict',
    of: 'baseline',
    to: 'floor',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.baselineRps,
    what: 'bench/baseline-server.ts REST /v1/predict rps',
  },
  {
    id: 'baseline_batch_rps',
    scenario: 'rest_batch_500',
    of: 'baseline',
    to: 'floor',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.baselineRps,
    what: 'bench/baseline-server.ts REST batch of 500 batches/s',
  },
]

const times = (ratio: number) => `${ratio.toFixed(2)}×`

function ratioCheck(
  spec: RatioTarget,
  reports: readonly ComparedScenario[],
  reference: Reference,
): TargetCheck | null {
  const to = spec.to === 'reference' ? reference : spec.to
  const comparison = reports
    .find((report) => report.id === spec.scenario)
    ?.comparisons.find((c) => c.of === spec.of && c.to === to)
  if (!comparison) return null
  const ratio = comparison.ratios[spec.metric]
  const unit = spec.metric === 'rps' ? '' : ' ms'
  const sign = spec.bound === 'at least' ? '≥' : '≤'
  const toLabel = spec.to === 'server' ? 'Redis up' : PROCESS_LABELS[to]
  return {
    id: spec.id,
    target: `${spec.what} ${sign} ${spec.threshold}× ${toLabel}`,
    measured: ratio,
    detail: `${times(ratio)} (${comparison.figures.of[spec.metric]}${unit} vs ${comparison.figures.to[spec.metric]}${unit})`,
    pass: Number.isFinite(ratio)
      ? spec.bound === 'at least'
        ? ratio >= spec.threshold
        : ratio <= spec.threshold
      : null,
  }
}

/** The targets of whichever scenarios ran. */
export function checkTargets(
  reports: readonly ComparedScenario[],
  options: { reference: Reference; statements: BatchStatements | null; projectRssMb: number },
): TargetCheck[] {
  const targets: TargetCheck[] = RATIO_TARGETS.flatMap(
    (spec) => ratioCheck(spec, reports, options.reference) ?? [],
  )
  targets.push({
    id: 'rss',
    target: `project RSS ≤ ${THRESHOLDS.rssMb} MB in every scenario`,
    measured: options.projectRssMb,
    detail: `max ${options.projectRssMb} MB`,
    pass: options.projectRssMb <= THRESHOLDS.rssMb,
  })
  const { statements } = options
  if (statements) {
    targets.push({
      id: 'batch_500_one_statement',
      target: '500-site batch answered with one SQL statement (earlier issue; kept as a guard)',
      measured: statements.verified ? (statements.statements ?? null) : null,
      detail: statements.note,
      pass: statements.verified ? statements.statements === 1 : null,
    })
  }
  return targets
}
