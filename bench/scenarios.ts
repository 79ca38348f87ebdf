/** What `npm run bench` sends: the pool of forest points, the request bodies built from it, the scenarios and the check of each answer. */

import { EMISSION_SCENARIOS, FUTURE_PERIODS } from '../src/domain/climate.ts'
import { SPECIES } from '../src/domain/species.ts'
import { generateSites } from '../src/seed/generate-sites.ts'
import { planScenarios } from './plans.ts'
import type { Arm, Comparison, Load, PredictBody, Scenario, ScenarioOptions } from './scenario-types.ts'
import { prng, round } from './support.ts'
import { treatedScenario } from './treated-load.ts'

export * from './scenario-types.ts'

// --- the pool of points ----------------------------------------------------------------------------

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j] as T, copy[i] as T]
  }
  return copy
}

/**
 * About `wanted` candidate points (at least two per seed site), distinct coordinates: each seed site
 * moved several times by up to ~450 m in each direction, species cycling through all 20, both methods,
 * every fourth with horizons [1, 5]; in a fixed random order. The caller keeps those every server answers.
 */
export function candidateBodies(wanted: number): PredictBody[] {
  const random = prng(0x5eed)
  const seen = new Set<string>()
  const bodies: PredictBody[] = []
  const sites = generateSites()
  const pointsPerSite = Math.max(2, Math.ceil(wanted / sites.length))
  for (const site of sites) {
    for (let copy = 0; copy < pointsPerSite; copy++) {
      const latitude = round(site.latitude + (random() - 0.5) * 0.008, 5)
      const longitude = round(site.longitude + (random() - 0.5) * 0.01, 5)
      const coordinates = `${latitude},${longitude}`
      if (seen.has(coordinates)) continue
      seen.add(coordinates)
      const i = bodies.length
      const body: PredictBody = {
        latitude,
        longitude,
        species_code: SPECIES[(i * 7) % SPECIES.length]?.code ?? 'PSME',
        planting_method: i % 2 ? 'drone_seeded' : 'manual',
      }
      if (i % 4 === 3) body.horizons = [1, 5]
      bodies.push(body)
    }
  }
  return shuffled(bodies, random)
}

/** Consecutive slices of `size` (the last may be shorter). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = []
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size))
  return result
}

/**
 * `count` different batches of `size` points: the pool reshuffled as often as needed and cut into full
 * slices, so no two batches are the same set although points recur across batches.
 */
function distinctBatches(pool: readonly PredictBody[], size: number, count: number): PredictBody[][] {
  const random = prng(0xba7c4)
  const batches: PredictBody[][] = []
  while (batches.length < count) {
    const full = chunks(shuffled(pool, random), size).filter((batch) => batch.length === size)
    if (full.length === 0) throw new Error(`the pool holds fewer than ${size} points`)
    batches.push(...full.slice(0, count - batches.length))
  }
  return batches
}

/** More batch bodies than any target is expected to send in one run (the reference server reached ~80 batches/s of 500, the project ~100). */
const BATCH_BODIES_PER_SECOND = 150

// --- GraphQL documents -----------------------------------------------------------------------------

/** Exactly the fields of the REST prediction (the sanity check compares them with the REST answer's). */
const PREDICTION_SELECTION = `site { latitude longitude matchedLatitude matchedLongitude matchDistanceKm region }
  speciesCode speciesCommonName plantingMethod
  predictions { horizonYears survivalProbability riskFactors { factor impact magnitude } }
  model { version codename series } generatedAt`

const GRAPHQL_PREDICT = `query BenchPredict($input: PredictionInput!) {
  predict(input: $input) { ...P }
}
fragment P on Prediction { ${PREDICTION_SELECTION} }`

const GRAPHQL_PREDICT_BATCH = `query BenchPredictBatch($sites: [BatchSiteInput!]!) {
  predictBatch(sites: $sites) { index prediction { ...P } error { code message } }
}
fragment P on Prediction { ${PREDICTION_SELECTION} }`

function graphqlPoint(body: PredictBody) {
  return {
    latitude: body.latitude,
    longitude: body.longitude,
    speciesCode: body.species_code,
    ...(body.horizons ? { horizons: body.horizons } : {}),
  }
}

/** PredictionInput: the planting method is an enum. */
const graphqlInput = (body: PredictBody) => ({
  ...graphqlPoint(body),
  plantingMethod: body.planting_method.toUpperCase(),
})

/** BatchSiteInput: the planting method is a string, so that a wrong one fails only its item. */
const graphqlBatchSite = (body: PredictBody) => ({
  ...graphqlPoint(body),
  plantingMethod: body.planting_method,
})

// --- response checks -------------------------------------------------------------------------------

const describe = (status: number, body: unknown) => `status ${status}: ${JSON.stringify(body).slice(0, 300)}`

const checkPredict = (status: number, body: unknown) =>
  status === 200 && Array.isArray((body as { predictions?: unknown } | null)?.predictions)
    ? null
    : describe(status, body)

function checkResults(status: number, body: unknown, results: unknown, size: number): string | null {
  if (status !== 200 || !Array.isArray(results)) return describe(status, body)
  const items = results as { prediction?: unknown }[]
  const answered = items.filter((item) => item.prediction).length
  return answered === size
    ? null
    : `${answered}/${size} items answered: ${JSON.stringify(items.find((r) => !r.prediction)).slice(0, 300)}`
}

interface GraphqlAnswer {
  data?: { predict?: unknown; predictBatch?: unknown } | null
  errors?: unknown[]
}

const graphqlData = (body: unknown) => (body as GraphqlAnswer | null)?.data

function graphqlProblem(status: number, body: unknown): string | null {
  const { data, errors } = (body ?? {}) as GraphqlAnswer
  return status !== 200 || errors?.length || !data ? describe(status, body) : null
}

// --- loads -----------------------------------------------------------------------------------------

const identity = (body: unknown) => body

function restPredict(bodies: readonly PredictBody[]): Load {
  return {
    path: '/v1/predict',
    bodies: bodies.map((body) => JSON.stringify(body)),
    sequence: 'points',
    check: checkPredict,
    restShape: identity,
  }
}

/** Every future climate the API knows: each period under each emission scenario (9). */
const FUTURES = FUTURE_PERIODS.flatMap((period) =>
  EMISSION_SCENARIOS.map((scenario) => ({ period, scenario })),
)

/**
 * The plain load's bodies (`bodies`, in its order), each with a future climate (the futures in turn).
 * The answer must carry the projection; the fields compared with the plain answer are the others.
 */
function withClimate(plain: Load, bodies: readonly PredictBody[]): Load {
  return {
    ...plain,
    bodies: bodies.map((body, index) =>
      JSON.stringify({ ...body, climate: FUTURES[index % FUTURES.length] }),
    ),
    check: (status, body) => {
      const problem = plain.check(status, body)
      if (problem) return problem
      return (body as { climate?: unknown } | null)?.climate
        ? null
        : `no climate in ${describe(status, body)}`
    },
    restShape: (body) => {
      const { climate: _projection, ...rest } = (body ?? {}) as Record<string, unknown>
      return rest
    },
  }
}

function restBatch(batches: readonly PredictBody[][], size: number): Load {
  return {
    path: '/v1/predict/batch',
    bodies: batches.map((sites) => JSON.stringify({ sites })),
    sequence: 'batches',
    check: (status, body) =>
      checkResults(status, body, (body as { results?: unknown } | null)?.results, size),
    restShape: identity,
  }
}

function graphqlPredict(bodies: readonly PredictBody[]): Load {
  return {
    path: '/graphql',
    bodies: bodies.map((body) =>
      JSON.stringify({ query: GRAPHQL_PREDICT, variables: { input: graphqlInput(body) } }),
    ),
    sequence: 'points',
    check: (status, body) => {
      const problem = graphqlProblem(status, body)
      if (problem) return problem
      return checkPredict(status, graphqlData(body)?.predict) === null ? null : describe(status, body)
    },
    restShape: (body) => graphqlData(body)?.predict,
  }
}

function graphqlBatch(batches: readonly PredictBody[][], size: number): Load {
  return {
    path: '/graphql',
    bodies: batches.map((sites) =>
      JSON.stringify({ query: GRAPHQL_PREDICT_BATCH, variables: { sites: sites.map(graphqlBatchSite) } }),
    ),
    sequence: 'batches',
    check: (status, body) =>
      graphqlProblem(status, body) ?? checkResults(status, body, graphqlData(body)?.predictBatch, size),
    restShape: (body) => ({ results: graphqlData(body)?.predictBatch }),
  }
}

// --- scenarios -------------------------------------------------------------------------------------

const BATCH_SIZE = 500

/**
 * The four scenarios against the reference, Redis away (against Redis up and the reference without Redis),
 * a Redis Cluster, the climate's REST one and the stocking plans' two (opt-in, plans.ts), over `pool`
 * (points every server answered).
 */
export function buildScenarios(pool: readonly PredictBody[], options: ScenarioOptions): Scenario[] {
  const { reference } = options
  const batches = distinctBatches(
    pool,
    BATCH_SIZE,
    Math.max(100, Math.ceil(options.durationS * BATCH_BODIES_PER_SECOND)),
  )
  const singles = restPredict(pool)
  const restBatches = restBatch(batches, BATCH_SIZE)
  const baseline = options.withBaseline && reference === 'reference'
  const withBaseline = (load: Load): Arm[] => (baseline ? [{ process: 'baseline', load }] : [])
  const baselineComparison: Comparison[] = baseline ? [{ of: 'baseline', to: 'reference' }] : []
  const points = `${pool.length.toLocaleString('en-US')} distinct points`
  return [
    {
      id: 'rest_predict',
      title: `REST POST /v1/predict (${points})`,
      connections: 32,
      arms: [
        { process: 'server', load: singles },
        { process: reference, load: singles },
        ...withBaseline(singles),
      ],
      comparisons: [{ of: 'server', to: reference }, ...baselineComparison],
    },
    {
      id: 'graphql_predict',
      title: `GraphQL predict, the REST answer's fields (${points}); reference: REST /v1/predict`,
      connections: 32,
      arms: [
        { process: 'server', load: graphqlPredict(pool) },
        { process: reference, load: singles },
      ],
      comparisons: [{ of: 'server', to: reference }],
    },
    {
      id: 'rest_batch_500',
      title: `REST POST /v1/predict/batch of ${BATCH_SIZE} (${batches.length} different batches; rps = batches/s)`,
      connections: 4,
      arms: [
        { process: 'server', load: restBatches },
        { process: reference, load: restBatches },
        ...withBaseline(restBatches),
      ],
      comparisons: [{ of: 'server', to: reference }, ...baselineComparison],
    },
    {
      id: 'graphql_batch_500',
      title: `GraphQL predictBatch of ${BATCH_SIZE} (rps = batches/s); reference: REST batch`,
      connections: 4,
      arms: [
        { process: 'server', load: graphqlBatch(batches, BATCH_SIZE) },
        { process: reference, load: restBatches },
      ],
      comparisons: [{ of: 'server', to: reference }],
    },
    {
      id: 'rest_predict_redis_away',
      title: `REST POST /v1/predict with Redis away (quotas in memory) vs Redis up (${points})`,
      connections: 32,
      arms: [
        { process: 'server_redis_away', load: singles },
        { process: 'server', load: singles },
        ...(reference === 'reference'
          ? [{ process: 'reference_no_redis', load: singles } satisfies Arm]
          : []),
      ],
      comparisons: [
        { of: 'server_redis_away', to: 'server' },
        ...(reference === 'reference'
          ? [{ of: 'server_redis_away', to: 'reference_no_redis' } satisfies Comparison]
          : []),
      ],
    },
    {
      // The project only: the same server on a Redis Cluster (3 masters, 3 replicas, started for the run)
      // and on the single Redis, taking turns.
      id: 'rest_predict_cluster',
      title: `REST POST /v1/predict with quotas on a Redis Cluster vs on one Redis (${points})`,
      connections: 32,
      arms: [
        { process: 'server_redis_cluster', load: singles },
        { process: 'server', load: singles },
      ],
      comparisons: [{ of: 'server_redis_cluster', to: 'server' }],
    },
    {
      // The project only (the reference server has no climate): its plain REST predict and the same bodies with a
      // future climate, taking turns on one process, going on through the points from one to the other.
      id: 'rest_predict_climate',
      title: `REST POST /v1/predict with a future climate (the ${FUTURES.length} in turn) vs without (${points})`,
      connections: 32,
      arms: [
        { process: 'server', load: singles },
        { process: 'server', variant: 'climate', load: withClimate(singles, pool) },
      ],
      comparisons: [{ of: 'server:climate', to: 'server' }],
    },
    treatedScenario(singles, pool),
    ...calibratedScenario(singles, pool, options.calibratedVersions ?? []),
    ...planScenarios(pool, options),
  ]
}

/**
 * The plain load's bodies pinned to the calibrated versions in turn: every answer must name its
 * version and carry its calibration block. Empty when no versions were made (not selected).
 */
function calibratedScenario(
  plain: Load,
  bodies: readonly PredictBody[],
  versions: readonly string[],
): Scenario[] {
  if (versions.length === 0) return []
  const pinned: Load = {
    ...plain,
    bodies: bodies.map((body, index) =>
      JSON.stringify({ ...body, model_version: versions[index % versions.length] }),
    ),
    check: (status, body) => {
      const problem = plain.check(status, body)
      if (problem) return problem
      const answer = body as { calibration?: unknown; model?: { version?: string } } | null
      return answer?.calibration && answer.model?.version?.includes('+cal.')
        ? null
        : `not calibrated: ${describe(status, body)}`
    },
  }
  return [
    {
      id: CALIBRATED_SCENARIO,
      title: `REST POST /v1/predict pinned to ${versions.length} calibrated versions in turn vs the base version (${bodies.length.toLocaleString('en-US')} points)`,
      connections: 32,
      arms: [
        { process: 'server', load: plain },
        { process: 'server', variant: 'calibrated', load: pinned },
      ],
      // The survival differs by design: the answers' shapes are checked, not their values.
      comparisons: [{ of: 'server:calibrated', to: 'server', sameFields: false }],
    },
  ]
}

export const CALIBRATED_SCENARIO = 'rest_predict_calibrated'
