/**
 * What the soak sends: lanes of traffic that run side by side, together covering every endpoint of the
 * API — single and batch predictions (REST and GraphQL, today's climate and futures), comparisons and
 * rankings, survival maps across species, methods, horizons, cell sizes and climates (so the map caches
 * fill to their bounds), stocking plans of points and stands, the catalogue and service endpoints, the
 * explorer, metrics, key requests and rotation, refusals of bad input, and portfolio jobs (CSV, GeoJSON
 * points, GeoJSON stands) streamed up, scored, streamed down and deleted.
 *
 * Each lane runs `connections` loops of `step` until the soak ends; a step sends one call (or, for the
 * stateful lanes, one short exchange) and records what came back in its tally.
 */
import { EMISSION_SCENARIOS, FUTURE_PERIODS } from '../src/domain/climate.ts'
import { SPECIES } from '../src/domain/species.ts'
import { isInCoverage } from '../src/geo/coverage.ts'
import { runJob, type Site } from './job-files.ts'
import type { SoakMailSink } from './mail-sink.ts'
import { type Call, type LaneTally, type SoakClient, sendAndRecord } from './soak-client.ts'
import { prng } from './support.ts'

export interface SoakContext {
  url: string
  client: SoakClient
  /** The key every lane calls with (hypha: unlimited). */
  key: string
  /** A second key, rotated over and over by the keys lane. */
  rotatingKey: string
  metricsToken: string
  sites: readonly Site[]
  /** Portfolio files on disk, written before the soak. */
  jobFiles: Record<'csv' | 'points' | 'stands', JobFile>
  /**
   * The mail server the soak's server sends key mail to (its env started the server): POST /keys is
   * taken (202) and each request mailed. Without one the server runs with DATABASE_URL and no SMTP_URL,
   * where self-service keys are off and POST /keys answers 404.
   */
  mailSink?: SoakMailSink
}

/** A portfolio file on disk: its rows, and how many of them lie outside the coverage (they fail). */
export interface JobFile {
  path: string
  rows: number
  outside: number
}

/** Every lane's id, as BENCH_SOAK_LANES names them. */
export const SOAK_LANE_IDS = [
  'predict',
  'batch',
  'compare',
  'graphql-predict',
  'graphql-batch',
  'map',
  'plans',
  'graphql-planning',
  'service',
  'refusals',
  'keys',
  'jobs',
] as const
export type LaneId = (typeof SOAK_LANE_IDS)[number]

export interface Lane {
  /** Its name in BENCH_SOAK_LANES. */
  id: LaneId
  name: string
  connections: number
  /** Pause after each step, ms (0: closed loop). */
  pauseMs: number
  step(tally: LaneTally): Promise<void>
}

const FUTURES = FUTURE_PERIODS.flatMap((period) =>
  EMISSION_SCENARIOS.map((scenario) => ({ period, scenario })),
)
const CODES = SPECIES.map((species) => species.code)
const METHODS = ['manual', 'drone_seeded'] as const
const HORIZONS = [1, 3, 5] as const
const BATCH_SIZE = 500

const pick = <T>(items: readonly T[], random: () => number): T =>
  items[Math.floor(random() * items.length)] as T

/**
 * A point near a seeded site (up to ~300 m away, and inside the coverage: a site by the coast or a state
 * line moved 300 m may not be), a species, a method; sometimes a future climate.
 */
function pointBody(sites: readonly Site[], random: () => number, withClimate = random() < 0.3) {
  let latitude: number
  let longitude: number
  do {
    const site = pick(sites, random)
    latitude = Number((site.latitude + (random() - 0.5) * 0.006).toFixed(5))
    longitude = Number((site.longitude + (random() - 0.5) * 0.006).toFixed(5))
  } while (!isInCoverage(latitude, longitude))
  return {
    latitude,
    longitude,
    species_code: pick(CODES, random),
    planting_method: pick(METHODS, random),
    ...(withClimate ? { climate: pick(FUTURES, random) } : {}),
  }
}

const json = (value: unknown) => JSON.stringify(value)

/** A check that the answer parses as JSON and passes `test`, described by `what`. */
function answerHas(what: string, test: (body: Record<string, unknown>) => boolean) {
  return (text: string) => {
    try {
      return test(JSON.parse(text) as Record<string, unknown>) ? null : `no ${what} in ${text.slice(0, 200)}`
    } catch {
      return `not JSON: ${text.slice(0, 200)}`
    }
  }
}

const hasPredictions = answerHas('predictions', (body) => Array.isArray(body.predictions))
const hasResults = (size: number) =>
  answerHas(`${size} answered results`, (body) => {
    const results = body.results as { prediction?: unknown }[] | undefined
    return Array.isArray(results) && results.length === size && results.every((item) => item.prediction)
  })
/** GraphQL: data for every field asked, no errors. */
const graphqlAnswered = answerHas('data without errors', (body) => {
  const data = body.data as Record<string, unknown> | null | undefined
  return !body.errors && !!data && Object.values(data).every((value) => value !== null)
})
/** GraphQL: refused with an error. */
const graphqlRefused = answerHas('errors', (body) => Array.isArray(body.errors) && body.errors.length > 0)

/** A lane of single calls, the next one built by `next`. */
function callLane(
  id: LaneId,
  name: string,
  connections: number,
  pauseMs: number,
  ctx: SoakContext,
  next: () => Call,
): Lane {
  return {
    id,
    name,
    connections,
    pauseMs,
    async step(tally) {
      await sendAndRecord(ctx.client, tally, next())
    },
  }
}

/** A call with the key, a JSON body and an expected 200 (unless said otherwise). */
function keyed(ctx: SoakContext, call: Omit<Call, 'expect'> & { expect?: readonly number[] }): Call {
  return { expect: [200], ...call, headers: { 'x-api-key': ctx.key, ...call.headers } }
}

const PREDICTION_FIELDS = `site { latitude longitude matchDistanceKm region } speciesCode plantingMethod
  predictions { horizonYears survivalProbability riskFactors { factor impact magnitude } }`

/** A GraphQL call: answered (200 with data for every field) or, given `refused` statuses, refused with errors. */
function graphql(
  ctx: SoakContext,
  query: string,
  variables: Record<string, unknown> = {},
  refused?: readonly number[],
): Call {
  return keyed(ctx, {
    method: 'POST',
    path: '/graphql',
    body: json({ query, variables }),
    expect: refused ?? [200],
    check: refused ? graphqlRefused : graphqlAnswered,
  })
}

const graphqlSite = (body: ReturnType<typeof pointBody>) => ({
  latitude: body.latitude,
  longitude: body.longitude,
  speciesCode: body.species_code,
  plantingMethod: body.planting_method,
})

function predictionLanes(ctx: SoakContext): Lane[] {
  const random = prng(0x50a4)
  const batch = () => Array.from({ length: BATCH_SIZE }, () => pointBody(ctx.sites, random, false))
  let turn = 0
  return [
    callLane('predict', 'REST predict', 4, 0, ctx, () =>
      keyed(ctx, {
        method: 'POST',
        path: '/v1/predict',
        body: json(pointBody(ctx.sites, random)),
        check: hasPredictions,
      }),
    ),
    callLane('batch', 'REST batch of 500', 1, 0, ctx, () =>
      keyed(ctx, {
        method: 'POST',
        path: '/v1/predict/batch',
        body: json({ sites: batch() }),
        check: hasResults(BATCH_SIZE),
      }),
    ),
    callLane('compare', 'REST compare and rank', 1, 0, ctx, () => {
      const { planting_method, species_code, ...where } = pointBody(ctx.sites, random)
      turn += 1
      return turn % 2
        ? keyed(ctx, {
            method: 'POST',
            path: '/v1/predict/compare',
            body: json({ ...where, species_code }),
            check: answerHas('predictions', (body) => typeof body.predictions === 'object'),
          })
        : keyed(ctx, {
            method: 'POST',
            path: '/v1/predict/rank',
            body: json({ ...where, planting_method, horizon: pick(HORIZONS, random) }),
          })
    }),
    callLane('graphql-predict', 'GraphQL predict', 2, 0, ctx, () => {
      const body = pointBody(ctx.sites, random)
      return graphql(
        ctx,
        `query P($input: PredictionInput!) { predict(input: $input) { ${PREDICTION_FIELDS} } }`,
        {
          input: {
            ...graphqlSite(body),
            plantingMethod: body.planting_method.toUpperCase(),
            ...(body.climate ? { climate: body.climate } : {}),
          },
        },
      )
    }),
    callLane('graphql-batch', 'GraphQL batch of 500', 1, 0, ctx, () =>
      graphql(
        ctx,
        `query B($sites: [BatchSiteInput!]!) { predictBatch(sites: $sites) { index prediction { ${PREDICTION_FIELDS} } error { code } } }`,
        { sites: batch().map(graphqlSite) },
      ),
    ),
  ]
}

/** survivalMap over every species, method, horizon, a few cell sizes and every climate, in turn. */
function mapLane(ctx: SoakContext): Lane {
  const random = prng(0x3a9)
  const climates = [null, ...FUTURES]
  return callLane('map', 'GraphQL survivalMap', 1, 0, ctx, () =>
    graphql(
      ctx,
      `query M($species: String!, $method: PlantingMethod!, $horizon: Int!, $cellKm: Float, $climate: ClimateInput) {
        survivalMap(speciesCode: $species, plantingMethod: $method, horizon: $horizon, cellKm: $cellKm, climate: $climate) {
          h3Resolution cells { h3Index meanSurvival sites }
        }
      }`,
      {
        species: pick(CODES, random),
        method: pick(['MANUAL', 'DRONE_SEEDED'], random),
        horizon: pick(HORIZONS, random),
        cellKm: pick([10, 25, 50, 100], random),
        climate: pick(climates, random),
      },
    ),
  )
}

/** Stand polygons of 5–5,000 ha (squares) around seeded sites. */
function standAround(site: Site, hectares: number) {
  const halfM = Math.sqrt(hectares * 10_000) / 2
  const dLat = halfM / 111_195
  const dLon = halfM / (111_195 * Math.cos((site.latitude * Math.PI) / 180))
  const [s, n, w, e] = [
    site.latitude - dLat,
    site.latitude + dLat,
    site.longitude - dLon,
    site.longitude + dLon,
  ]
  return {
    type: 'Polygon',
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  }
}

const MIXES = [
  [{ species_code: 'PSME', share: 1 }],
  [
    { species_code: 'PSME', share: 0.8 },
    { species_code: 'ALRU', share: 0.2 },
  ],
  [
    { species_code: 'PIPO', share: 0.7 },
    { species_code: 'PSME', share: 0.3 },
  ],
]

function planningLanes(ctx: SoakContext): Lane[] {
  const random = prng(0x9e7)
  const mix = () => pick(MIXES, random)
  const climate = () => (random() < 0.5 ? { climate: pick(FUTURES, random) } : {})
  let restTurn = 0
  const graphqlQueries: (() => Call)[] = [
    () => {
      const body = pointBody(ctx.sites, random)
      return graphql(
        ctx,
        'query R($lat: Float!, $lon: Float!, $climate: ClimateInput) { speciesRanking(latitude: $lat, longitude: $lon, plantingMethod: MANUAL, horizon: 5, climate: $climate) { ranking { rank species { code } survivalProbability } } }',
        { lat: body.latitude, lon: body.longitude, climate: body.climate ?? null },
      )
    },
    () => {
      const body = pointBody(ctx.sites, random)
      return graphql(
        ctx,
        'query S($input: StockingPlanInput!) { stockingPlan(input: $input) { meetsProbability confidence horizons { horizonYears } } }',
        {
          input: {
            latitude: body.latitude,
            longitude: body.longitude,
            plantingMethod: 'MANUAL',
            treesPerAcre: pick([250, 300, 350, 400], random),
            speciesMix: mix().map((item) => ({ speciesCode: item.species_code, share: item.share })),
            ...(body.climate ? { climate: body.climate } : {}),
          },
        },
      )
    },
    () => {
      const body = pointBody(ctx.sites, random)
      return graphql(
        ctx,
        'query C($input: ComparisonInput!) { compareMethods(input: $input) { species { code } manual { horizonYears } droneSeeded { horizonYears } } }',
        { input: { latitude: body.latitude, longitude: body.longitude, speciesCode: body.species_code } },
      )
    },
    () =>
      graphql(
        ctx,
        '{ climateScenarios { periods } coverage { region searchRadiusKm } model { version } modelFactors { key } plantingMethods { id } viewer { __typename } health { status } }',
      ),
    () =>
      graphql(ctx, 'query Q($search: String) { species(search: $search) { code commonName } }', {
        search: pick(['fir', 'pine', 'ALRU', 'cedar', 'oak', ''], random),
      }),
  ]
  let graphqlTurn = 0
  return [
    callLane('plans', 'REST stocking plans', 1, 0, ctx, () => {
      restTurn += 1
      const site = pick(ctx.sites, random)
      const planting = {
        planting_method: pick(METHODS, random),
        species_mix: mix(),
        trees_per_acre: pick([250, 300, 350, 400, 450], random),
        ...climate(),
      }
      const where =
        restTurn % 2
          ? { latitude: site.latitude, longitude: site.longitude }
          : { stand: standAround(site, 5 + random() * 4_995) }
      return keyed(ctx, {
        method: 'POST',
        path: '/v1/plans/stocking',
        body: json({ ...where, ...planting }),
        check: answerHas('horizons', (body) => Array.isArray(body.horizons)),
      })
    }),
    callLane('graphql-planning', 'GraphQL planning and catalogue', 1, 0, ctx, () => {
      graphqlTurn += 1
      return (graphqlQueries[graphqlTurn % graphqlQueries.length] as () => Call)()
    }),
  ]
}

/** The catalogue, the service endpoints, the explorer and metrics, in turn. */
function serviceLane(ctx: SoakContext, explorerAssets: readonly string[]): Lane {
  const calls: Call[] = [
    keyed(ctx, { method: 'GET', path: '/v1/species' }),
    keyed(ctx, { method: 'GET', path: '/v1/species?group=conifer&search=fir' }),
    keyed(ctx, { method: 'GET', path: '/v1/methods' }),
    keyed(ctx, { method: 'GET', path: '/v1/climate' }),
    keyed(ctx, { method: 'GET', path: '/v1/coverage' }),
    keyed(ctx, { method: 'GET', path: '/v1/usage' }),
    { method: 'GET', path: '/v1/health', expect: [200] },
    { method: 'GET', path: '/v1/health/live', expect: [200] },
    { method: 'GET', path: '/v1/openapi.json', expect: [200] },
    {
      method: 'GET',
      path: '/metrics',
      headers: { authorization: `Bearer ${ctx.metricsToken}` },
      expect: [200],
    },
    { method: 'GET', path: '/', headers: { accept: 'text/html' }, expect: [200] },
    { method: 'GET', path: '/graphql', headers: { accept: 'text/html' }, expect: [200] },
    ...explorerAssets.map((path): Call => ({ method: 'GET', path, expect: [200] })),
  ]
  let turn = 0
  return callLane('service', 'REST catalogue, service, explorer, metrics', 1, 0, ctx, () => {
    turn += 1
    return calls[turn % calls.length] as Call
  })
}

/** Bad input of every kind, each refused with its status. */
function refusalLane(ctx: SoakContext): Lane {
  const random = prng(0xbad)
  const predict = (
    body: string | Buffer,
    status: number,
    code: string,
    headers: Record<string, string> = {},
  ): Call => keyed(ctx, { method: 'POST', path: '/v1/predict', body, expect: [status], code, headers })
  const valid = () => pointBody(ctx.sites, random, false)
  const calls: (() => Call)[] = [
    () => predict('{"latitude": ', 400, 'invalid_json'),
    () => predict(json({ ...valid(), latitude: 40, longitude: -100 }), 422, 'outside_coverage'),
    () => predict(json({ ...valid(), species_code: 'ZZZZ' }), 422, 'invalid_species'),
    () => predict(json({ ...valid(), extra: true }), 400, 'invalid_request'),
    () => predict(Buffer.alloc(2 * 2 ** 20, 0x20), 413, 'payload_too_large'),
    () => predict(json(valid()), 415, 'unsupported_media_type', { 'content-type': 'text/plain' }),
    () => ({
      method: 'POST',
      path: '/v1/predict',
      body: json(valid()),
      expect: [401],
      code: 'invalid_api_key',
    }),
    () => ({
      method: 'POST',
      path: '/v1/predict',
      body: json(valid()),
      headers: { 'x-api-key': 'sk_live_nope' },
      expect: [401],
      code: 'invalid_api_key',
    }),
    () => keyed(ctx, { method: 'GET', path: '/v1/nowhere', expect: [404], code: 'not_found' }),
    () => keyed(ctx, { method: 'DELETE', path: '/v1/species', expect: [405], code: 'method_not_allowed' }),
    () =>
      keyed(ctx, {
        method: 'GET',
        path: '/v1/jobs/00000000-0000-0000-0000-000000000000',
        expect: [404],
        code: 'not_found',
      }),
    () =>
      keyed(ctx, {
        method: 'POST',
        path: '/v1/predict/batch',
        body: json({ sites: [] }),
        expect: [400],
        code: 'invalid_request',
      }),
    // Asked as application/json (no Accept), GraphQL refusals answer 200 with errors; as
    // application/graphql-response+json, 400.
    () => graphql(ctx, '{ predict(input: ', {}, [200]),
    () => {
      const call = graphql(ctx, '{ predict(input: ', {}, [400])
      return { ...call, headers: { ...call.headers, accept: 'application/graphql-response+json' } }
    },
    () =>
      graphql(ctx, `{ ${Array.from({ length: 600 }, (_, n) => `a${n}: __typename`).join(' ')} }`, {}, [200]),
    () =>
      keyed(ctx, {
        method: 'POST',
        path: '/v1/jobs',
        body: 'lat,lon\n1,2\n',
        headers: { 'content-type': 'text/csv' },
        expect: [400],
        code: 'invalid_request',
      }),
  ]
  let turn = 0
  return callLane('refusals', 'refusals of bad input', 1, 0, ctx, () => {
    turn += 1
    return (calls[turn % calls.length] as () => Call)()
  })
}

/**
 * Rotates the second key (the new one works, the old one is refused at once), and asks for a spore key
 * by mail now and then.
 */
function keysLane(ctx: SoakContext): Lane {
  let current = ctx.rotatingKey
  let asked = 0
  /** Key requests the server took (202), and how many of them it had taken by the ask before the last. */
  let taken = 0
  let takenTwoAsksAgo = 0
  let takenOneAskAgo = 0
  return {
    id: 'keys',
    name: 'keys: rotate and issue',
    connections: 1,
    pauseMs: 2_000,
    async step(tally) {
      const rotated = await sendAndRecord(ctx.client, tally, {
        method: 'POST',
        path: '/v1/keys/rotate',
        headers: { 'x-api-key': current },
        body: json({ grace_seconds: 0 }),
        expect: [201],
        check: answerHas('key', (body) => typeof body.key === 'string'),
      })
      if (rotated?.status === 201) {
        const previous = current
        current = (JSON.parse(rotated.text) as { key: string }).key
        await sendAndRecord(ctx.client, tally, {
          method: 'GET',
          path: '/v1/usage',
          headers: { 'x-api-key': current },
          expect: [200],
        })
        await sendAndRecord(ctx.client, tally, {
          method: 'GET',
          path: '/v1/usage',
          headers: { 'x-api-key': previous },
          expect: [401],
          code: 'invalid_api_key',
        })
      }
      asked += 1
      if (asked % 5 !== 1) return
      const sink = ctx.mailSink
      if (!sink) {
        // DATABASE_URL and no SMTP_URL: self-service keys are off, and the door says there is none.
        await sendAndRecord(ctx.client, tally, {
          method: 'POST',
          path: '/keys',
          body: json({ email: `soak-${asked}@example.org`, name: 'soak' }),
          expect: [404],
          code: 'not_found',
        })
        return
      }
      // Key mail on: each request is taken (the same answer for every address) and mailed, until the
      // per-address limit answers 429 after the first few. What was taken two asks ago (20 s and more)
      // must have reached the mail server by now.
      takenTwoAsksAgo = takenOneAskAgo
      takenOneAskAgo = taken
      const answer = await sendAndRecord(ctx.client, tally, {
        method: 'POST',
        path: '/keys',
        body: json({ email: `soak-${asked}@example.org`, name: 'soak' }),
        expect: [202, 429],
        code: 'rate_limit_exceeded',
        check: (text) => {
          if (text !== '{"status":"check_your_email"}') return `not check_your_email: ${text.slice(0, 100)}`
          const mailed = sink.received()
          return mailed < takenTwoAsksAgo ? `${takenTwoAsksAgo} key requests taken, ${mailed} mailed` : null
        },
      })
      if (answer?.status === 202) taken += 1
    },
  }
}

/** Portfolio jobs in turn: CSV, GeoJSON points, GeoJSON stands; each scored, downloaded, then deleted. */
function jobLane(ctx: SoakContext): Lane {
  const kinds = [
    { file: ctx.jobFiles.csv, as: { type: 'text/csv' as const } },
    { file: ctx.jobFiles.points, as: { type: 'application/geo+json' as const } },
    {
      file: ctx.jobFiles.stands,
      as: { type: 'application/geo+json' as const, query: '?planting_method=manual&trees_per_acre=350' },
    },
  ]
  let turn = 0
  return {
    id: 'jobs',
    name: 'jobs: CSV, GeoJSON points, stands',
    connections: 1,
    pauseMs: 0,
    async step(tally) {
      const kind = kinds[turn % kinds.length] as (typeof kinds)[number]
      turn += 1
      const started = performance.now()
      try {
        const run = await runJob(ctx.url, ctx.key, kind.file.path, kind.file.rows, kind.as)
        const problem =
          run.resultRows === kind.file.rows && run.rowsFailed === kind.file.outside
            ? null
            : `${kind.as.type}: ${run.resultRows} result rows, ${run.rowsFailed} failed (${kind.file.outside} lie outside the coverage), of ${kind.file.rows}`
        tally.record(200, performance.now() - started, problem)
        await sendAndRecord(ctx.client, tally, {
          method: 'DELETE',
          path: `/v1/jobs/${run.id}`,
          headers: { 'x-api-key': ctx.key },
          expect: [204],
        })
      } catch (error) {
        tally.record(0, performance.now() - started, `${kind.as.type}: ${(error as Error).message}`)
      }
    },
  }
}

/** Every lane of the soak. */
export function soakLanes(ctx: SoakContext, explorerAssets: readonly string[]): Lane[] {
  return [
    ...predictionLanes(ctx),
    mapLane(ctx),
    ...planningLanes(ctx),
    serviceLane(ctx, explorerAssets),
    refusalLane(ctx),
    keysLane(ctx),
    jobLane(ctx),
  ]
}
