/** The shapes of what `npm run bench` runs: processes, loads, arms, scenarios (scenarios.ts and plans.ts build them). */

/**
 * The processes the bench starts: those a scenario can put load on, and `server_fresh` (a project server
 * started for one survival-map measurement, survival-map.ts). `reference` is the reference server in
 * bench/reference/ (reference-server.ts); when its folder is absent, bench/baseline-server.ts stands in for
 * it (the run's `Reference` is then `baseline`).
 */
export type ProcessName =
  | 'server'
  | 'server_redis_away'
  | 'server_redis_cluster'
  | 'server_fresh'
  | 'reference'
  | 'reference_no_redis'
  | 'baseline'
/** Who the project is compared with in a run: the reference server, or baseline-server.ts in its stead. */
export type Reference = 'reference' | 'baseline'

export const PROCESS_LABELS: Record<ProcessName, string> = {
  server: 'project',
  server_redis_away: 'project, Redis away',
  server_redis_cluster: 'project, Redis Cluster',
  server_fresh: 'project, fresh process',
  reference: 'reference',
  reference_no_redis: 'reference, NO_REDIS=1',
  baseline: 'baseline',
}

export interface Load {
  path: string
  bodies: string[]
  /**
   * Loads of the same sequence hold the same points in the same order (REST and GraphQL bodies of the
   * pool, with or without a climate, or of the batches): a process goes on where it stopped in a
   * sequence, from scenario to scenario and from arm to arm.
   */
  sequence: 'points' | 'batches' | 'stands'
  /**
   * Present: a body the server answers with an error (any non-2xx) is counted like any other answer but
   * not sent again; index → status of the bodies refused so far (the stocking plans' stands, plans.ts).
   */
  refused?: Map<number, number>
  /** Checks one response of this load (status and shape); returns a problem or null. */
  check(status: number, body: unknown): string | null
  /** The answer as REST would give it (GraphQL: the data inside), to compare the fields both carry. */
  restShape(body: unknown): unknown
}

/** One process under one load; each round runs a scenario's arms in order (A B A B …). */
export interface Arm {
  process: ProcessName
  load: Load
  /** Tells two arms on one process apart (e.g. `climate`): the arm is then `process:variant`. */
  variant?: string
}

/** An arm within its scenario: its process, or `process:variant`. */
export type ArmKey = ProcessName | `${ProcessName}:${string}`

export const armKey = (arm: Pick<Arm, 'process' | 'variant'>): ArmKey =>
  arm.variant ? `${arm.process}:${arm.variant}` : arm.process

export const armLabel = (arm: Pick<Arm, 'process' | 'variant'>): string =>
  arm.variant ? `${PROCESS_LABELS[arm.process]}, ${arm.variant}` : PROCESS_LABELS[arm.process]

/** A ratio the report prints: `of` ÷ `to`. */
export interface Comparison {
  of: ArmKey
  to: ArmKey
  /** false: the two answers are of different endpoints, so their fields are not compared before the load. */
  sameFields?: boolean
}

export interface Scenario {
  id: string
  title: string
  connections: number
  arms: Arm[]
  comparisons: Comparison[]
  /** Run only when BENCH_SCENARIOS names it (it is not in the default set). */
  optIn?: boolean
}

export interface PredictBody {
  latitude: number
  longitude: number
  species_code: string
  planting_method: 'manual' | 'drone_seeded'
  horizons?: number[]
  climate?: { period: string; scenario: string }
}

export interface ScenarioOptions {
  /** Who the project is compared with: the reference server, or baseline-server.ts when it is absent. */
  reference: Reference
  /** Also run baseline-server.ts beside the reference server in the REST scenarios (BENCH_BASELINE=1). */
  withBaseline: boolean
  durationS: number
  /** Seconds of load one arm takes in a scenario: its warm-up and its rounds. */
  armSeconds: number
  /** The calibrated versions rest_predict_calibrated pins (bench/calibrations.ts); none: not run. */
  calibratedVersions?: readonly string[]
}
