/** The targets of `npm run bench` (against the reference, the climate's, the stocking plans'), checked against a run; a miss is reported, never an error. */
import type { BatchStatements } from './runner.ts'
import type { ArmKey, Reference } from './scenarios.ts'
import { round } from './support.ts'
import type { SurvivalMapOutcome } from './survival-map.ts'

/** Ratios of medians in the same run (rps: at least; latency: at most) and the server's RSS ceiling. */
export const THRESHOLDS = {
  /**
   * Server CPU per answered request against the reference's, same rounds: the steady figure on a shared
   * machine (rps moves with whatever else runs; the CPU a request costs the server does not).
   */
  restPredictCpu: 0.7,
  graphqlPredictCpu: 0.85,
  restBatchCpu: 0.8,
  /** rps in a quiet run, which those CPU cuts make room for. */
  restPredictRps: 1.3,
  restPredictP99: 1.2,
  graphqlPredictRps: 1.1,
  restBatchRps: 1.15,
  restBatchP50: 1.15,
  graphqlBatchRps: 0.6,
  redisAwayRps: 0.9,
  /** REST predict with quotas on a Redis Cluster against the same server on one Redis, same run. */
  redisClusterRps: 0.9,
  /** REST predict with a future climate against the same bodies without one, same process and run. */
  climatePredictRps: 0.95,
  /** REST predict pinned to calibrated versions (50 in turn) against the base version, same process and run. */
  calibratedPredictRps: 0.95,
  /** REST predict with treatments against the same bodies without, same process and run. */
  treatedPredictRps: 0.95,
  /** survivalMap's first call under a climate against today's first call (same map, fresh processes). */
  climateMapFirst: 1.5,
  /**
   * survivalMap's second call under a climate against today's second call: answered from the cache as
   * today's is (what is left of either is writing ~1,100 cells as JSON).
   */
  climateMapCached: 1.25,
  /** A point's stocking plan against /v1/predict/compare of the same points: server CPU per request, at most. */
  planPointCpu: 3,
  /** p99 of 20,000 ha stand plans at 4 connections, ms (an absolute bound, not a ratio). */
  planStandP99Ms: 100,
  /** bench/baseline-server.ts must be at least as lean as the reference server to be worth keeping. */
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

type Compared = { rps: number; p50: number; p99: number; cpuServer: number }

/** What the checks read of a scenario's report. */
interface ComparedScenario {
  id: string
  connections: number
  arms: readonly {
    key: ArmKey
    label: string
    distinct_bodies: number
    refused: { bodies: number } | null
    median: { rps: number; p50: number; p99: number; errors: number; non2xx: number; repeated: boolean }
    runs: readonly { timeouts: number }[]
  }[]
  comparisons: readonly {
    of: ArmKey
    to: ArmKey
    ratios: Compared
    /** The median of the rounds' own rps ratios (report.ts, pairedRpsRatio). */
    pairedRps: number
    figures: { of: Compared; to: Compared }
  }[]
}

interface RatioTarget {
  id: string
  scenario: string
  of: ArmKey
  /** 'reference_or_baseline': the run's reference (the reference server, or baseline-server.ts in its stead). */
  to: ArmKey | 'reference_or_baseline'
  /** What the target calls `to` (default: its arm's label). */
  toLabel?: string
  /** cpuServer: the server process's CPU µs per answered request. */
  metric: keyof Compared
  bound: 'at least' | 'at most'
  threshold: number
  what: string
  /**
   * rps only: judged on the median of the rounds' own ratios rather than the ratio of the medians. For
   * the project against itself (another load, or another process beside it), a difference of a few
   * percent that the machine's drift between rounds can exceed (its rounds' ratios ran from 0.67× to
   * 1.05× in one run).
   */
  paired?: true
}

const RATIO_TARGETS: readonly RatioTarget[] = [
  {
    id: 'rest_predict_cpu',
    scenario: 'rest_predict',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'cpuServer',
    bound: 'at most',
    threshold: THRESHOLDS.restPredictCpu,
    what: 'REST /v1/predict server CPU per request',
  },
  {
    id: 'graphql_predict_cpu',
    scenario: 'graphql_predict',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'cpuServer',
    bound: 'at most',
    threshold: THRESHOLDS.graphqlPredictCpu,
    what: 'GraphQL predict server CPU per request (vs REST predict)',
  },
  {
    id: 'rest_batch_cpu',
    scenario: 'rest_batch_500',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'cpuServer',
    bound: 'at most',
    threshold: THRESHOLDS.restBatchCpu,
    what: 'REST batch of 500 server CPU per batch',
  },
  {
    id: 'rest_predict_rps',
    scenario: 'rest_predict',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.restPredictRps,
    what: 'REST /v1/predict rps',
  },
  {
    id: 'rest_predict_p99',
    scenario: 'rest_predict',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'p99',
    bound: 'at most',
    threshold: THRESHOLDS.restPredictP99,
    what: 'REST /v1/predict p99',
  },
  {
    id: 'graphql_predict_rps',
    scenario: 'graphql_predict',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.graphqlPredictRps,
    what: 'GraphQL predict rps (vs REST predict)',
  },
  {
    id: 'rest_batch_rps',
    scenario: 'rest_batch_500',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.restBatchRps,
    what: 'REST batch of 500 batches/s',
  },
  {
    id: 'rest_batch_p50',
    scenario: 'rest_batch_500',
    of: 'server',
    to: 'reference_or_baseline',
    metric: 'p50',
    bound: 'at most',
    threshold: THRESHOLDS.restBatchP50,
    what: 'REST batch of 500 p50',
  },
  {
    id: 'graphql_batch_rps',
    scenario: 'graphql_batch_500',
    of: 'server',
    to: 'reference_or_baseline',
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
    paired: true,
    what: 'REST /v1/predict rps with Redis away',
    toLabel: 'Redis up',
  },
  {
    id: 'redis_cluster_rps',
    scenario: 'rest_predict_cluster',
    of: 'server_redis_cluster',
    to: 'server',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.redisClusterRps,
    paired: true,
    what: 'REST /v1/predict rps with quotas on a Redis Cluster',
    toLabel: 'one Redis (same run)',
  },
  {
    id: 'climate_predict_rps',
    scenario: 'rest_predict_climate',
    of: 'server:climate',
    to: 'server',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.climatePredictRps,
    paired: true,
    what: 'REST /v1/predict with a climate rps',
    toLabel: 'without (same run)',
  },
  {
    id: 'treated_predict_rps',
    scenario: 'rest_predict_treated',
    of: 'server:treated',
    to: 'server',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.treatedPredictRps,
    paired: true,
    what: 'REST /v1/predict with treatments rps',
    toLabel: 'without (same run)',
  },
  {
    id: 'calibrated_predict_rps',
    scenario: 'rest_predict_calibrated',
    of: 'server:calibrated',
    to: 'server',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.calibratedPredictRps,
    paired: true,
    what: 'REST /v1/predict pinned to 50 calibrated versions rps',
    toLabel: 'the base version (same run)',
  },
  {
    id: 'plan_point_cpu',
    scenario: 'plan_point',
    of: 'server:plan',
    to: 'server:compare',
    metric: 'cpuServer',
    bound: 'at most',
    threshold: THRESHOLDS.planPointCpu,
    what: 'REST /v1/plans/stocking point plan server CPU per request',
    toLabel: '/v1/predict/compare of the same points (same run)',
  },
  {
    id: 'baseline_predict_rps',
    scenario: 'rest_predict',
    of: 'baseline',
    to: 'reference',
    metric: 'rps',
    bound: 'at least',
    threshold: THRESHOLDS.baselineRps,
    what: 'bench/baseline-server.ts REST /v1/predict rps',
  },
  {
    id: 'baseline_batch_rps',
    scenario: 'rest_batch_500',
    of: 'baseline',
    to: 'reference',
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
  const to = spec.to === 'reference_or_baseline' ? reference : spec.to
  const report = reports.find((candidate) => candidate.id === spec.scenario)
  const comparison = report?.comparisons.find((c) => c.of === spec.of && c.to === to)
  if (!comparison) return null
  const paired = spec.paired === true && spec.metric === 'rps'
  const ratio = paired ? comparison.pairedRps : comparison.ratios[spec.metric]
  const unit = spec.metric === 'rps' ? '' : spec.metric === 'cpuServer' ? ' µs' : ' ms'
  const sign = spec.bound === 'at least' ? '≥' : '≤'
  const toLabel = spec.toLabel ?? report?.arms.find((arm) => arm.key === to)?.label ?? to
  const figures = `${comparison.figures.of[spec.metric]}${unit} vs ${comparison.figures.to[spec.metric]}${unit}`
  return {
    id: spec.id,
    target: `${spec.what} ${sign} ${spec.threshold}× ${toLabel}${paired ? ', median of the rounds’ ratios' : ''}`,
    measured: ratio,
    detail: paired
      ? `${times(ratio)} (medians ${figures}: ${times(comparison.ratios.rps)}; CPU per request ${times(comparison.ratios.cpuServer)})`
      : `${times(ratio)} (${figures})`,
    pass: Number.isFinite(ratio)
      ? spec.bound === 'at least'
        ? ratio >= spec.threshold
        : ratio <= spec.threshold
      : null,
  }
}

/** The stand plans' p99 against its bound in ms, with what else the target asks to see: p50, rps, errors. */
function standCheck(reports: readonly ComparedScenario[]): TargetCheck | null {
  const report = reports.find((candidate) => candidate.id === 'plan_stand')
  const arm = report?.arms.find((candidate) => candidate.key === 'server:stand')
  if (!report || !arm) return null
  const m = arm.median
  const timeouts = arm.runs.reduce((sum, run) => sum + run.timeouts, 0)
  const refused = arm.refused
    ? `, ${arm.refused.bodies} of ${arm.distinct_bodies} stands refused and skipped`
    : ''
  return {
    id: 'plan_stand_p99',
    target: `REST /v1/plans/stocking stands of just under 20,000 ha, ${report.connections} connections: p99 ≤ ${THRESHOLDS.planStandP99Ms} ms`,
    measured: m.p99,
    detail: `p99 ${m.p99} ms (p50 ${m.p50} ms, ${m.rps} rps; errors ${m.errors}, timeouts ${timeouts}, non2xx ${m.non2xx}${refused}${m.repeated ? '; some stands asked twice' : ''})`,
    pass: Number.isFinite(m.p99) ? m.p99 <= THRESHOLDS.planStandP99Ms : null,
  }
}

/** A ratio of the survival map's timings against its bound (at most); not measured → N/A with the reason. */
function mapCheck(
  map: SurvivalMapOutcome,
  spec: { id: string; target: string; threshold: number },
  pick: (medianMs: Extract<SurvivalMapOutcome, { measured: true }>['medianMs']) => { of: number; to: number },
): TargetCheck {
  const { id, target } = spec
  if (!map.measured) return { id, target, measured: null, detail: `not measured: ${map.reason}`, pass: null }
  const { of, to } = pick(map.medianMs)
  const ratio = round(of / to, 3)
  return {
    id,
    target,
    measured: ratio,
    detail: `${times(ratio)} (${of} vs ${to} ms, medians of ${map.repetitions})`,
    pass: Number.isFinite(ratio) ? ratio <= spec.threshold : null,
  }
}

/** The survival map's two targets. */
function mapTargets(map: SurvivalMapOutcome): TargetCheck[] {
  return [
    mapCheck(
      map,
      {
        id: 'climate_map_first',
        target: `survivalMap first call under a climate ≤ ${THRESHOLDS.climateMapFirst}× today's first call`,
        threshold: THRESHOLDS.climateMapFirst,
      },
      (m) => ({ of: m.climateFirstMs, to: m.todayFirstMs }),
    ),
    mapCheck(
      map,
      {
        id: 'climate_map_cached',
        target: `survivalMap under a climate cached after: second call ≤ ${THRESHOLDS.climateMapCached}× today's second call`,
        threshold: THRESHOLDS.climateMapCached,
      },
      (m) => ({ of: m.climateSecondMs, to: m.todaySecondMs }),
    ),
  ]
}

/** The targets of whichever scenarios and measurements ran. */
export function checkTargets(
  reports: readonly ComparedScenario[],
  options: {
    reference: Reference
    statements: BatchStatements | null
    projectRssMb: number
    /** null: not asked for in this run. */
    survivalMap: SurvivalMapOutcome | null
  },
): TargetCheck[] {
  const targets: TargetCheck[] = RATIO_TARGETS.flatMap(
    (spec) => ratioCheck(spec, reports, options.reference) ?? [],
  )
  const stand = standCheck(reports)
  if (stand) targets.push(stand)
  if (reports.length)
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
      target: '500-site batch answered with one SQL statement (kept as a guard)',
      measured: statements.verified ? (statements.statements ?? null) : null,
      detail: statements.note,
      pass: statements.verified ? statements.statements === 1 : null,
    })
  }
  if (options.survivalMap) targets.push(...mapTargets(options.survivalMap))
  return targets
}
