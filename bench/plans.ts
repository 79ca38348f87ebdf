/**
 * The stocking plans' scenarios of `npm run bench` (POST /v1/plans/stocking), both opt-in
 * (BENCH_SCENARIOS=plan_point,plan_stand):
 *
 * - `plan_point`: point plans over the pool's points, the species mix and density varied, against
 *   POST /v1/predict/compare of the same points (same process, same connections, arms taking turns);
 *   target: a plan's server CPU per request ≤ 3× a comparison's (targets.ts).
 * - `plan_stand`: stands of just under 20,000 ha (squares, rotated rectangles and irregular polygons, the
 *   size measured as the server measures it, @turf/area) centred on the pool's points, 4 connections;
 *   a stand the server refuses is counted and not sent again. Target: p99 ≤ 100 ms.
 */
import { area } from '@turf/area'
import type { Polygon, Position } from 'geojson'
import { STAND_MAX_HECTARES } from '../src/domain/stocking/stand.ts'
import type { Load, PredictBody, Scenario, ScenarioOptions } from './scenario-types.ts'
import { prng } from './support.ts'

/** Its ids in BENCH_SCENARIOS. */
export const PLAN_POINT_ID = 'plan_point'
export const PLAN_STAND_ID = 'plan_stand'
const PLAN_PATH = '/v1/plans/stocking'

interface MixItem {
  species_code: string
  share: number
}

/**
 * Mixes a forester might plant: west of the Cascade crest Douglas-fir alone, with red alder (a hardwood,
 * capped under Oregon's rule) or with redcedar and hemlock; east of it ponderosa-pine-led mixes.
 */
const WESTSIDE_MIXES: readonly MixItem[][] = [
  [{ species_code: 'PSME', share: 1 }],
  [
    { species_code: 'PSME', share: 0.8 },
    { species_code: 'ALRU', share: 0.2 },
  ],
  [
    { species_code: 'PSME', share: 0.6 },
    { species_code: 'THPL', share: 0.2 },
    { species_code: 'TSHE', share: 0.2 },
  ],
]
const EASTSIDE_MIXES: readonly MixItem[][] = [
  [
    { species_code: 'PIPO', share: 0.7 },
    { species_code: 'PSME', share: 0.3 },
  ],
  [
    { species_code: 'PIPO', share: 0.5 },
    { species_code: 'PSME', share: 0.3 },
    { species_code: 'LAOC', share: 0.2 },
  ],
  [{ species_code: 'PIPO', share: 1 }],
]
/** Roughly the Cascade crest: points east of it get an eastside mix. */
const CREST_LONGITUDE = -121.6
/** Planted densities, trees per acre (a 4 × 4 m grid is ~250; 300–450 is common on the westside). */
const TREES_PER_ACRE = [300, 350, 400, 450, 250] as const

/** What a plan at the pool's index-th point plants: the mixes and densities taken in turn. */
function planting(point: PredictBody, index: number) {
  const mixes = point.longitude > CREST_LONGITUDE ? EASTSIDE_MIXES : WESTSIDE_MIXES
  return {
    planting_method: point.planting_method,
    species_mix: mixes[index % mixes.length] as MixItem[],
    trees_per_acre: TREES_PER_ACRE[index % TREES_PER_ACRE.length] as number,
  }
}

const describe = (status: number, body: unknown) => `status ${status}: ${JSON.stringify(body).slice(0, 300)}`

interface PlanAnswer {
  horizons?: unknown[]
  meets_standard?: { probability?: unknown }
  site?: unknown
  stand?: { area_ha?: unknown; sites_inside?: unknown }
}

/** A plan with its three horizons, its probability of meeting the rule, and the point or the stand asked for. */
function checkPlan(kind: 'site' | 'stand') {
  return (status: number, body: unknown): string | null => {
    const plan = (body ?? {}) as PlanAnswer
    if (status !== 200 || !Array.isArray(plan.horizons) || plan.horizons.length !== 3)
      return describe(status, body)
    if (typeof plan.meets_standard?.probability !== 'number')
      return `no meets_standard.probability in ${describe(status, body)}`
    if (!plan[kind]) return `no ${kind} in ${describe(status, body)}`
    return null
  }
}

const identity = (body: unknown) => body

/**
 * The load with its bodies built when first read: buildScenarios builds every scenario, and a run
 * without the plans' (the default) would otherwise turn the whole pool into plan bodies for nothing.
 * (A getter: spreading the load would build them.)
 */
function builtWhenRead(load: Omit<Load, 'bodies'>, build: () => string[]): Load {
  let bodies: string[] | null = null
  return Object.defineProperty(load, 'bodies', {
    get: () => {
      bodies ??= build()
      return bodies
    },
    enumerable: true,
  }) as Load
}

/** Point plans of the pool's points, in the pool's order (the same sequence as the single predicts). */
function pointPlans(pool: readonly PredictBody[]): Load {
  return builtWhenRead(
    { path: PLAN_PATH, sequence: 'points', check: checkPlan('site'), restShape: identity },
    () =>
      pool.map((point, index) =>
        JSON.stringify({ latitude: point.latitude, longitude: point.longitude, ...planting(point, index) }),
      ),
  )
}

/** /v1/predict/compare of the same points: the point's species, both methods, every horizon (as a plan). */
function comparisons(pool: readonly PredictBody[]): Load {
  const bodies = () =>
    pool.map((point) =>
      JSON.stringify({
        latitude: point.latitude,
        longitude: point.longitude,
        species_code: point.species_code,
      }),
    )
  return builtWhenRead(
    {
      path: '/v1/predict/compare',
      sequence: 'points',
      check: (status, body) => {
        const predictions = (body as { predictions?: { manual?: unknown; drone_seeded?: unknown } } | null)
          ?.predictions
        return status === 200 &&
          Array.isArray(predictions?.manual) &&
          Array.isArray(predictions?.drone_seeded)
          ? null
          : describe(status, body)
      },
      restShape: identity,
    },
    bodies,
  )
}

// --- stands ----------------------------------------------------------------------------------------

/** Each stand's size is drawn from this range, hectares: just under the server's limit (20,000). */
const STAND_HECTARES = { min: 19_600, max: 19_950 } as const
/** No stand the bench sends may measure more than this (a margin under the limit for rounding). */
const STAND_CEILING_HA = STAND_MAX_HECTARES - 10
/** Coordinates are sent with 6 decimals (~0.1 m). */
const COORDINATE_DECIMALS = 6
/**
 * More stands than the server is expected to plan per second at 4 connections (each plan reads ~15–25
 * sites and integrates over them: ~240/s on a 2-core machine); a run that asks for more repeats stands
 * and is marked `*`.
 */
const STAND_PEAK_RPS = 1_000

/** Kilometres per degree of latitude and of longitude at a latitude (WGS84 series). */
function kmPerDegree(latitude: number): { lat: number; lon: number } {
  const phi = (latitude * Math.PI) / 180
  return {
    lat: (111_132.92 - 559.82 * Math.cos(2 * phi) + 1.175 * Math.cos(4 * phi)) / 1000,
    lon: (111_412.84 * Math.cos(phi) - 93.5 * Math.cos(3 * phi)) / 1000,
  }
}

/** A closed ring of lon/lat positions from points in km east and north of a centre, scaled by `scale`. */
function ringAround(centre: PredictBody, localKm: readonly [number, number][], scale: number): Position[] {
  const perDegree = kmPerDegree(centre.latitude)
  const factor = 10 ** COORDINATE_DECIMALS
  const ring = localKm.map(
    ([east, north]): Position => [
      Math.round((centre.longitude + (east * scale) / perDegree.lon) * factor) / factor,
      Math.round((centre.latitude + (north * scale) / perDegree.lat) * factor) / factor,
    ],
  )
  ring.push([...(ring[0] as Position)])
  return ring
}

/**
 * A shape of about `areaKm2` around the origin, counterclockwise (RFC 7946), in km: a square (side
 * √area: ~14.1 km for 19,900 ha), a rotated rectangle, or an irregular polygon (8–48 vertices at
 * increasing angles, so it never crosses itself).
 */
function localShape(kind: number, areaKm2: number, random: () => number): [number, number][] {
  if (kind === 0) {
    const half = Math.sqrt(areaKm2) / 2
    return [
      [-half, -half],
      [half, -half],
      [half, half],
      [-half, half],
    ]
  }
  if (kind === 1) {
    const aspect = 1.2 + random() * 0.8
    const [halfWidth, halfHeight] = [Math.sqrt(areaKm2 * aspect) / 2, Math.sqrt(areaKm2 / aspect) / 2]
    const turn = random() * Math.PI
    const [cos, sin] = [Math.cos(turn), Math.sin(turn)]
    const corners: [number, number][] = [
      [-halfWidth, -halfHeight],
      [halfWidth, -halfHeight],
      [halfWidth, halfHeight],
      [-halfWidth, halfHeight],
    ]
    return corners.map(([x, y]) => [x * cos - y * sin, x * sin + y * cos])
  }
  const vertices = 8 + Math.floor(random() * 41)
  const step = (2 * Math.PI) / vertices
  const start = random() * step
  const points: [number, number][] = []
  for (let i = 0; i < vertices; i++) {
    const angle = start + step * (i + (random() - 0.5) * 0.6)
    const radius = 0.6 + random() * 0.4
    points.push([radius * Math.cos(angle), radius * Math.sin(angle)])
  }
  return points
}

/**
 * A stand of `targetHa` (just under) around `centre`: the shape built in km from the latitude's degree
 * lengths, then scaled until @turf/area (what the server measures with) gives targetHa within 1 ha.
 */
function standAround(centre: PredictBody, kind: number, targetHa: number, random: () => number): Polygon {
  const shape = localShape(kind, targetHa / 100, random)
  let scale = 1
  for (let attempt = 0; attempt < 8; attempt++) {
    const geometry: Polygon = { type: 'Polygon', coordinates: [ringAround(centre, shape, scale)] }
    const hectares = area(geometry) / 10_000
    if (hectares <= targetHa && targetHa - hectares < 1) return geometry
    // Area grows with the square of the scale; aim a little low so the last step lands under.
    scale *= Math.sqrt((targetHa - 0.5) / hectares)
  }
  const geometry: Polygon = { type: 'Polygon', coordinates: [ringAround(centre, shape, scale)] }
  const hectares = area(geometry) / 10_000
  if (hectares > STAND_CEILING_HA)
    throw new Error(`a bench stand measures ${hectares} ha, over ${STAND_CEILING_HA} ha`)
  return geometry
}

/**
 * Stand plans centred on the first `count` points of the pool, the shapes, sizes, mixes and densities
 * varied (built when first read: ~1 s for 27,000). The server's refusals are counted, and not sent again.
 */
function standPlans(pool: readonly PredictBody[], count: number): Load {
  const build = () => {
    const random = prng(0x57a4d)
    const built: string[] = []
    for (let index = 0; index < count; index++) {
      const centre = pool[index] as PredictBody
      const hectares = STAND_HECTARES.min + random() * (STAND_HECTARES.max - STAND_HECTARES.min)
      const stand = standAround(centre, index % 3, hectares, random)
      built.push(JSON.stringify({ stand, ...planting(centre, index) }))
    }
    return built
  }
  const check = checkPlan('stand')
  return builtWhenRead(
    {
      path: PLAN_PATH,
      sequence: 'stands',
      refused: new Map(),
      check: (status, body) => {
        const problem = check(status, body)
        if (problem) return problem
        const hectares = (body as PlanAnswer).stand?.area_ha
        return typeof hectares === 'number' &&
          hectares > STAND_HECTARES.min - 1 &&
          hectares <= STAND_MAX_HECTARES
          ? null
          : `stand.area_ha ${hectares}, not the ~${STAND_HECTARES.min}–${STAND_HECTARES.max} ha sent`
      },
      restShape: identity,
    },
    build,
  )
}

/** The two stocking-plan scenarios (opt-in), over `pool`. */
export function planScenarios(pool: readonly PredictBody[], options: ScenarioOptions): Scenario[] {
  // As many stands as a run can ask for at STAND_PEAK_RPS, one per point of the pool at most.
  const standCount = Math.min(pool.length, Math.max(100, Math.ceil(STAND_PEAK_RPS * options.armSeconds)))
  const points = `${pool.length.toLocaleString('en-US')} distinct points`
  return [
    {
      // The project only: a point plan and /v1/predict/compare of the same points taking turns on one
      // process, going on through the points from one to the other.
      id: PLAN_POINT_ID,
      title: `REST POST ${PLAN_PATH} point plans (${WESTSIDE_MIXES.length + EASTSIDE_MIXES.length} mixes, ${TREES_PER_ACRE.length} densities) vs POST /v1/predict/compare (${points})`,
      connections: 32,
      arms: [
        { process: 'server', variant: 'compare', load: comparisons(pool) },
        { process: 'server', variant: 'plan', load: pointPlans(pool) },
      ],
      comparisons: [{ of: 'server:plan', to: 'server:compare', sameFields: false }],
      optIn: true,
    },
    {
      id: PLAN_STAND_ID,
      title: `REST POST ${PLAN_PATH} stands of ${STAND_HECTARES.min.toLocaleString('en-US')}–${STAND_HECTARES.max.toLocaleString('en-US')} ha (${standCount.toLocaleString('en-US')} different stands)`,
      connections: 4,
      arms: [{ process: 'server', variant: 'stand', load: standPlans(pool, standCount) }],
      comparisons: [],
      optIn: true,
    },
  ]
}
