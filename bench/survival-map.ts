/**
 * survivalMap under a future climate, measured call by call (no load): how long the first map of one
 * species × method × horizon × cell size takes under today's climate and under a future one, each in a
 * fresh server process, and the second call under that climate (answered from the process's cache).
 *
 * "First call" is the work of that one map: each fresh process first answers one GraphQL request that
 * does not touch the map (the key, the GraphQL pipeline) and one map of another species under today's
 * climate (the site read, H3, the cells of the resolution), then the map measured. So today's and the
 * climate's first calls do the same work but for what the climate adds, in processes in the same state;
 * nothing of the climate's is cached by the priming map. The priming call's time (a fresh process's very
 * first map) is kept too, and, in today's process, the climate's map asked after today's (as a client
 * switching climates would; today's values of that map are then cached).
 *
 * Runs only when schema/schema.graphql gives survivalMap a `climate` argument (else says why not).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  buildSchema,
  type GraphQLField,
  type GraphQLNamedType,
  getNamedType,
  isEnumType,
  isObjectType,
  isScalarType,
} from 'graphql'
import { post } from './runner.ts'
import type { MeasuredProcess } from './servers.ts'
import { median, ROOT, round } from './support.ts'

/** Its id in BENCH_SCENARIOS. */
export const SURVIVAL_MAP_ID = 'survival_map_climate'

/** The map measured, and the map of another species that primes each process first. */
export const MAP_REQUEST = { speciesCode: 'PSME', plantingMethod: 'MANUAL', horizon: 5, cellKm: 25 } as const
const PRIMING_SPECIES = 'TSHE'
/** The furthest future under the highest emissions: the largest change. */
export const MAP_CLIMATE = { period: '2071-2100', scenario: 'ssp585' } as const

type Log = (message: string) => void

/** What the schema says survivalMap takes and gives under a climate. */
interface MapSchema {
  /** The selection of a cell's change under a climate (`changeFromToday` or `changeFromToday { … }`), if the cells have one. */
  changeSelection: string | null
}

/** Its scalar fields, or the field itself when it is a scalar: what a client would select of it. */
function leafSelection(field: GraphQLField<unknown, unknown>): string {
  const type: GraphQLNamedType = getNamedType(field.type)
  if (isScalarType(type) || isEnumType(type)) return field.name
  if (!isObjectType(type)) throw new Error(`${field.name}: a ${type.name} is neither a scalar nor an object`)
  const leaves = Object.values(type.getFields()).filter((child) => {
    const named = getNamedType(child.type)
    return isScalarType(named) || isEnumType(named)
  })
  return `${field.name} { ${leaves.map((child) => child.name).join(' ')} }`
}

/** The map part of schema/schema.graphql, or why the measurement cannot run yet. */
export function readMapSchema(): MapSchema | { missing: string } {
  const schema = buildSchema(readFileSync(join(ROOT, 'schema/schema.graphql'), 'utf8'))
  const field = schema.getQueryType()?.getFields().survivalMap
  if (!field) return { missing: 'schema/schema.graphql has no survivalMap' }
  if (!field.args.some((arg) => arg.name === 'climate'))
    return { missing: 'survivalMap in schema/schema.graphql has no climate argument yet' }
  const cell = schema.getType('SurvivalCell')
  const change = isObjectType(cell) ? cell.getFields().changeFromToday : undefined
  return { changeSelection: change ? leafSelection(change) : null }
}

const literal = (value: string | number) => JSON.stringify(value)

/** The query: the fields the map explorer asks for, and under a climate the cells' change. */
function mapDocument(speciesCode: string, climate: typeof MAP_CLIMATE | null, schema: MapSchema): string {
  const { plantingMethod, horizon, cellKm } = MAP_REQUEST
  const climateArgument = climate
    ? `, climate: { period: ${literal(climate.period)}, scenario: ${literal(climate.scenario)} }`
    : ''
  const change = climate && schema.changeSelection ? ` ${schema.changeSelection}` : ''
  return `query BenchSurvivalMap {
  survivalMap(speciesCode: ${literal(speciesCode)}, plantingMethod: ${plantingMethod}, horizon: ${horizon}, cellKm: ${cellKm}${climateArgument}) {
    horizonYears cellKm siteCount species { code }
    cells { h3Index boundary meanSurvival minSurvival maxSurvival sites${change} }
  }
}`
}

interface MapAnswer {
  data?: { survivalMap?: { siteCount?: number; cells?: Record<string, unknown>[] } | null } | null
  errors?: unknown[]
}

/** One survivalMap call, timed from the request to the parsed answer; throws on any error in it. */
async function timedMap(server: MeasuredProcess, document: string, expectChange: boolean) {
  const started = performance.now()
  const { status, body } = await post(server, '/graphql', JSON.stringify({ query: document }))
  const ms = performance.now() - started
  const answer = (body ?? {}) as MapAnswer
  const cells = answer.data?.survivalMap?.cells
  const problem =
    status !== 200 || answer.errors?.length || !cells?.length
      ? `status ${status}`
      : expectChange && !cells.some((cell) => cell.changeFromToday != null)
        ? 'no cell has a changeFromToday'
        : null
  if (problem) throw new Error(`survivalMap: ${problem}: ${JSON.stringify(body).slice(0, 300)}`)
  return { ms: round(ms, 1), cells: cells?.length ?? 0 }
}

const WARM_UP = JSON.stringify({ query: 'query BenchWarmUp { viewer { limits { batchSize } } }' })

export interface MapTimings {
  /** Each fresh process's very first map (another species, today's climate). */
  primingMs: number[]
  todayFirstMs: number[]
  todaySecondMs: number[]
  climateFirstMs: number[]
  climateSecondMs: number[]
  /** In today's process, after today's two calls: the climate's first call with today's values cached. */
  climateAfterTodayMs: number[]
}

export type SurvivalMapOutcome =
  | {
      measured: true
      request: typeof MAP_REQUEST & { climate: typeof MAP_CLIMATE; primingSpecies: string }
      repetitions: number
      cells: number
      runs: MapTimings
      medianMs: { [K in keyof MapTimings]: number }
    }
  | { measured: false; reason: string }

/**
 * `repetitions` × (a fresh process for today's map, then one for the climate's), each primed, then the
 * map measured twice. `startFresh` starts a project server that has answered nothing yet; it is stopped here.
 */
export async function measureSurvivalMap(
  startFresh: () => Promise<MeasuredProcess>,
  repetitions: number,
  log: Log,
): Promise<SurvivalMapOutcome> {
  const schema = readMapSchema()
  if ('missing' in schema) {
    log(`${SURVIVAL_MAP_ID}: not measured: ${schema.missing}`)
    return { measured: false, reason: schema.missing }
  }
  const runs: MapTimings = {
    primingMs: [],
    todayFirstMs: [],
    todaySecondMs: [],
    climateFirstMs: [],
    climateSecondMs: [],
    climateAfterTodayMs: [],
  }
  const priming = mapDocument(PRIMING_SPECIES, null, schema)
  // The map as today's is asked for, under the climate: the same fields. The cells' changeFromToday costs
  // today's pass as well and is computed only when selected, so it is left out of the comparison.
  const underClimate = mapDocument(MAP_REQUEST.speciesCode, MAP_CLIMATE, { ...schema, changeSelection: null })
  const expectChange = false
  let cells = 0
  for (let repetition = 1; repetition <= repetitions; repetition++) {
    for (const climate of [null, MAP_CLIMATE]) {
      const server = await startFresh()
      try {
        const warm = await post(server, '/graphql', WARM_UP)
        if (warm.status !== 200) throw new Error(`warm-up: status ${warm.status}`)
        runs.primingMs.push((await timedMap(server, priming, false)).ms)
        const document = climate ? underClimate : mapDocument(MAP_REQUEST.speciesCode, null, schema)
        const first = await timedMap(server, document, climate !== null && expectChange)
        const second = await timedMap(server, document, climate !== null && expectChange)
        cells = first.cells
        ;(climate ? runs.climateFirstMs : runs.todayFirstMs).push(first.ms)
        ;(climate ? runs.climateSecondMs : runs.todaySecondMs).push(second.ms)
        const after = climate ? null : await timedMap(server, underClimate, expectChange)
        if (after) runs.climateAfterTodayMs.push(after.ms)
        log(
          `${SURVIVAL_MAP_ID} ${repetition}/${repetitions} ${climate ? `${climate.period} ${climate.scenario}` : 'today'}: first ${first.ms} ms, second ${second.ms} ms${after ? `, then under the climate ${after.ms} ms` : ''} (priming map ${runs.primingMs.at(-1)} ms, ${first.cells} cells)`,
        )
      } finally {
        server.rss.stop()
        await server.child.stop()
      }
    }
  }
  const medianMs = Object.fromEntries(
    Object.entries(runs).map(([name, values]) => [name, round(median(values), 1)]),
  ) as { [K in keyof MapTimings]: number }
  return {
    measured: true,
    request: { ...MAP_REQUEST, climate: MAP_CLIMATE, primingSpecies: PRIMING_SPECIES },
    repetitions,
    cells,
    runs,
    medianMs,
  }
}
