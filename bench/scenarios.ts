/** What `npm run bench` sends: deterministic request bodies, GraphQL documents, the scenarios and the check of each answer. */
import { generateSites } from '../seed/generate-sites.ts'
import { SPECIES } from '../src/domain/species.ts'
import { isInCoverage } from '../src/geo/coverage.ts'
import { round } from './support.ts'

/** The two processes under load, in the order each round runs them. */
export const TARGET_NAMES = ['server', 'baseline'] as const
export type TargetName = (typeof TARGET_NAMES)[number]

export interface Load {
  path: string
  bodies: string[]
  /** Checks one response of this load (status and shape); returns a problem or null. */
  check(status: number, body: unknown): string | null
}

export interface Scenario {
  id: string
  title: string
  connections: number
  /** What the baseline runs for comparison (for GraphQL: the REST-equivalent request). */
  baselineNote: string
  server: Load
  baseline: Load
}

// --- request bodies --------------------------------------------------------------------------------

interface PredictBody {
  latitude: number
  longitude: number
  species_code: string
  planting_method: 'manual' | 'drone_seeded'
  horizons?: number[]
}

/** Deterministic PRNG (mulberry32), so every run sends the same points. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * `count` distinct forest points: random seed sites moved by up to ~0.5 km (so every point has a site
 * well inside the 10 km radius), with species cycling through all 20 and both methods.
 */
function forestBodies(count: number): PredictBody[] {
  const sites = generateSites()
  const random = prng(0x5eed)
  const indices = sites.map((_, index) => index)
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (indices.length - i))
    ;[indices[i], indices[j]] = [indices[j] as number, indices[i] as number]
  }
  return indices.slice(0, count).map((siteIndex, i) => {
    const site = sites[siteIndex]
    if (!site) throw new Error('site index out of range')
    // Coastal sites moved offshore would be outside_coverage: keep the site itself then.
    let latitude = round(site.latitude + (random() - 0.5) * 0.008, 5)
    let longitude = round(site.longitude + (random() - 0.5) * 0.01, 5)
    if (!isInCoverage(latitude, longitude)) [latitude, longitude] = [site.latitude, site.longitude]
    const body: PredictBody = {
      latitude,
      longitude,
      species_code: (SPECIES[(i * 7) % SPECIES.length] ?? SPECIES[0])?.code ?? 'PSME',
      planting_method: i % 2 ? 'drone_seeded' : 'manual',
    }
    if (i % 4 === 3) body.horizons = [1, 5]
    return body
  })
}

// --- GraphQL documents -----------------------------------------------------------------------------

const PREDICTION_SELECTION = `site { latitude longitude matchedLatitude matchedLongitude matchDistanceKm region }
  speciesCode speciesCommonName plantingMethod
  predictions { horizonYears survivalProbability riskFactors { factor impact magnitude } }
  model { version codename series } generatedAt`

const GRAPHQL_PREDICT = `query BenchPredict($input: PredictionInput!) {
  predict(input: $input) { ...P }
}
fragment P on Prediction { ${PREDICTION_SELECTION} }`

function graphqlInput(body: PredictBody) {
  return {
    latitude: body.latitude,
    longitude: body.longitude,
    speciesCode: body.species_code,
    plantingMethod: body.planting_method.toUpperCase(),
    ...(body.horizons ? { horizons: body.horizons } : {}),
  }
}

function aliasedDocument(items: readonly PredictBody[]): string {
  const fields = items.map((item, index) => {
    const input = graphqlInput(item)
    const horizons = input.horizons ? `, horizons: [${input.horizons.join(', ')}]` : ''
    return `p${index}: predict(input: {latitude: ${input.latitude}, longitude: ${input.longitude}, speciesCode: "${input.speciesCode}", plantingMethod: ${input.plantingMethod}${horizons}}) { ...P }`
  })
  return `query BenchAliased {\n${fields.join('\n')}\n}\nfragment P on Prediction { ${PREDICTION_SELECTION} }`
}

// --- response checks -------------------------------------------------------------------------------

const checkPredict = (status: number, body: unknown) =>
  status === 200 && Array.isArray((body as { predictions?: unknown }).predictions)
    ? null
    : `status ${status}: ${JSON.stringify(body).slice(0, 300)}`

const checkBatch = (size: number) => (status: number, body: unknown) => {
  const results = (body as { results?: { prediction?: unknown }[] }).results
  if (status !== 200 || !Array.isArray(results))
    return `status ${status}: ${JSON.stringify(body).slice(0, 300)}`
  const answered = results.filter((item) => item.prediction).length
  return answered === size
    ? null
    : `${answered}/${size} items answered: ${JSON.stringify(results.find((r) => !r.prediction)).slice(0, 300)}`
}

const checkGraphql = (fields: number) => (status: number, body: unknown) => {
  const { data, errors } = body as { data?: Record<string, unknown> | null; errors?: unknown[] }
  if (status !== 200 || errors?.length || !data)
    return `status ${status}: ${JSON.stringify(body).slice(0, 300)}`
  const answered = Object.values(data).filter((value) => value !== null).length
  return answered === fields ? null : `${answered}/${fields} fields answered`
}

// --- scenarios -------------------------------------------------------------------------------------

export function buildScenarios(): Scenario[] {
  const bodies = forestBodies(2000)
  const singles = bodies.slice(0, 1000)
  const batches500 = [0, 1, 2, 3].map((k) => bodies.slice(k * 500, k * 500 + 500))
  const sets100 = Array.from({ length: 10 }, (_, k) => singles.slice(k * 100, k * 100 + 100))
  const predictBodies = singles.map((body) => JSON.stringify(body))
  return [
    {
      id: 'rest_predict',
      title: 'REST POST /v1/predict (1,000 varied points)',
      connections: 40,
      baselineNote: 'baseline POST /v1/predict, same bodies',
      server: { path: '/v1/predict', bodies: predictBodies, check: checkPredict },
      baseline: { path: '/v1/predict', bodies: predictBodies, check: checkPredict },
    },
    {
      id: 'rest_batch_500',
      title: 'REST POST /v1/predict/batch (500 sites)',
      connections: 10,
      baselineNote: 'baseline POST /v1/predict/batch, same bodies',
      server: {
        path: '/v1/predict/batch',
        bodies: batches500.map((sites) => JSON.stringify({ sites })),
        check: checkBatch(500),
      },
      baseline: {
        path: '/v1/predict/batch',
        bodies: batches500.map((sites) => JSON.stringify({ sites })),
        check: checkBatch(500),
      },
    },
    {
      id: 'graphql_predict',
      title: 'GraphQL predict (1,000 varied points, variables)',
      connections: 40,
      baselineNote: 'baseline REST POST /v1/predict, same points',
      server: {
        path: '/graphql',
        bodies: singles.map((body) =>
          JSON.stringify({ query: GRAPHQL_PREDICT, variables: { input: graphqlInput(body) } }),
        ),
        check: checkGraphql(1),
      },
      baseline: { path: '/v1/predict', bodies: predictBodies, check: checkPredict },
    },
    {
      id: 'graphql_alias_100',
      title: 'GraphQL 100 aliased predicts (10 documents)',
      connections: 20,
      baselineNote: 'baseline REST POST /v1/predict/batch with the same 100 sites',
      server: {
        path: '/graphql',
        bodies: sets100.map((items) => JSON.stringify({ query: aliasedDocument(items) })),
        check: checkGraphql(100),
      },
      baseline: {
        path: '/v1/predict/batch',
        bodies: sets100.map((sites) => JSON.stringify({ sites })),
        check: checkBatch(100),
      },
    },
  ]
}
