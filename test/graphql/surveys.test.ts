import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IssuedKey } from '../../src/types.ts'
import { rest } from '../rest/client.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { firstError, type GraphQLResult, graphql } from '../support/graphql-helpers.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { FOREST_POINTS, forestGrid, OUTSIDE_POINTS } from '../support/sites.ts'

/**
 * The survey fields of GraphQL (surveys, surveyPlot, surveyReport; storeSurveys, deleteSurveyPlot,
 * deleteAllSurveys) on the real stack (PostgreSQL, Redis): the same service and errors as /v1/surveys,
 * the caller's account only, a key needed, and one request counted per operation.
 */

let db: TestDatabase
let server: TestServer
let owner: IssuedKey
let other: IssuedKey

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db, keyCacheMs: 0 })
  owner = await issueKey(db, 'mycel')
  other = await issueKey(db, 'mycel')
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in tests
type Body = any

const SURVEY_FIELDS = `plotId surveyedOn plantedOn latitude longitude speciesCode plantingMethod planted alive
  observedSurvival plotAreaM2 protocol ageYears predictedSurvival modelVersion
  site { siteId matchedLatitude matchedLongitude matchDistanceKm } updatedAt`

const STORE = `mutation Store($plots: [SurveyPlotInput!]!) {
  storeSurveys(plots: $plots) { stored plots { ${SURVEY_FIELDS} } } }`

const LIST = `query List($filter: SurveyFilterInput, $limit: Int, $cursor: String) {
  surveys(filter: $filter, limit: $limit, cursor: $cursor) { plots { plotId surveyedOn speciesCode } nextCursor } }`

const PLOT = `query Plot($plotId: String!) { surveyPlot(plotId: $plotId) { ${SURVEY_FIELDS} } }`

const GROUP = `speciesCode plantingMethod ageBand plots treesPlanted treesAlive observedSurvival
  observedInterval { low high } meanPredictedSurvival difference differenceInterval { low high } differs dispersion plotCorrelation`

const REPORT = `query Report($filter: SurveyFilterInput) { surveyReport(filter: $filter) {
  modelVersion intervalLevel overall { ${GROUP} } groups { ${GROUP} }
  scores { brier logLoss calibrationInTheLarge { estimate interval { low high } }
    calibrationSlope { estimate interval { low high } intercept } }
  reliability { from to plots trees meanPredictedSurvival observedSurvival }
  notes } }`

const DELETE_PLOT = 'mutation DeletePlot($plotId: String!) { deleteSurveyPlot(plotId: $plotId) }'
const DELETE_ALL = 'mutation DeleteAll($confirm: Boolean!) { deleteAllSurveys(confirm: $confirm) }'

function plot(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    plotId: 'A-1',
    ...FOREST_POINTS.coastRange,
    speciesCode: 'PSME',
    plantingMethod: 'manual',
    plantedOn: '2021-03-15',
    surveyedOn: '2024-03-15',
    planted: 40,
    alive: 31,
    ...overrides,
  }
}

const send = (query: string, key: string | undefined, variables: Record<string, unknown> = {}) =>
  graphql(server.url, query, { key, variables })

const store = (key: string, plots: unknown[]) => send(STORE, key, { plots })

async function storedRows(plotId: string): Promise<number> {
  const [row] = await db.sql`SELECT count(*)::int AS n FROM survey_plots WHERE plot_id = ${plotId}`
  return row?.n as number
}

/** The data of a response that has no errors. */
function dataOf(result: GraphQLResult): Body {
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined()
  expect(result.status).toBe(200)
  return result.body.data
}

/** The error a refused operation answers with: its status, code and no data. */
function refusal(result: GraphQLResult, status: number, code: string) {
  const error = firstError(result)
  expect(result.status, JSON.stringify(result.body)).toBe(status)
  expect(error.extensions).toMatchObject({ code, status })
  expect(result.body.data ?? null).toBeNull()
  return error
}

/** A GraphQL report in the names of GET /v1/surveys/report, to compare the two field for field. */
function asRestReport(report: Body): Body {
  const interval = (i: Body) => ({ low: i.low, high: i.high })
  const group = (g: Body) =>
    g && {
      species_code: g.speciesCode,
      planting_method: g.plantingMethod?.toLowerCase() ?? null,
      age_band: g.ageBand
        ? { UNDER_2: 'under_2', FROM_2_TO_4: '2_to_4', OVER_4: 'over_4' }[g.ageBand as string]
        : null,
      plots: g.plots,
      trees_planted: g.treesPlanted,
      trees_alive: g.treesAlive,
      observed_survival: g.observedSurvival,
      observed_interval: interval(g.observedInterval),
      mean_predicted_survival: g.meanPredictedSurvival,
      difference: g.difference,
      difference_interval: interval(g.differenceInterval),
      differs: g.differs,
      dispersion: g.dispersion,
      plot_correlation: g.plotCorrelation,
    }
  const scores = report.scores
  return {
    model_version: report.modelVersion,
    interval_level: report.intervalLevel,
    overall: group(report.overall) ?? null,
    groups: report.groups.map(group),
    scores: scores && {
      brier: scores.brier,
      log_loss: scores.logLoss,
      calibration_in_the_large: {
        estimate: scores.calibrationInTheLarge.estimate,
        interval: interval(scores.calibrationInTheLarge.interval),
      },
      calibration_slope: scores.calibrationSlope && {
        estimate: scores.calibrationSlope.estimate,
        interval: interval(scores.calibrationSlope.interval),
        intercept: scores.calibrationSlope.intercept,
      },
    },
    reliability: report.reliability.map((bin: Body) => ({
      from: bin.from,
      to: bin.to,
      plots: bin.plots,
      trees: bin.trees,
      mean_predicted_survival: bin.meanPredictedSurvival,
      observed_survival: bin.observedSurvival,
    })),
    notes: report.notes,
  }
}

describe('storeSurveys', () => {
  it('keeps the plots with the matched site and the model’s survival at their age, as REST does', async () => {
    const result = await store(owner.key, [
      plot({ plotId: 'keep-1', protocol: 'or_fpa_stocking', plotAreaM2: 404.7 }),
      plot({ plotId: 'keep-2', plantedOn: '2022', surveyedOn: '2023-03-01', alive: 12 }),
    ])
    const { storeSurveys } = dataOf(result)
    expect(storeSurveys.stored).toBe(2)
    const [first, second] = storeSurveys.plots
    expect(first).toMatchObject({
      plotId: 'keep-1',
      speciesCode: 'PSME',
      plantingMethod: 'MANUAL',
      planted: 40,
      alive: 31,
      observedSurvival: 31 / 40,
      protocol: 'or_fpa_stocking',
      plotAreaM2: 404.7,
      modelVersion: '0.2',
    })
    expect(first.ageYears).toBeCloseTo(1096 / 365.25, 10)
    expect(first.site.matchDistanceKm).toBeGreaterThanOrEqual(0)
    expect(second).toMatchObject({
      plotId: 'keep-2',
      plantedOn: '2022-03-01',
      plotAreaM2: null,
      protocol: null,
    })

    // What REST reads back for the same account is what GraphQL stored.
    const read = await rest(server.url, 'GET', '/v1/surveys/keep-1', { key: owner.key })
    const [kept] = (read.body as { surveys: Record<string, unknown>[] }).surveys
    expect(kept).toMatchObject({
      predicted_survival: first.predictedSurvival,
      age_years: first.ageYears,
      updated_at: first.updatedAt,
      site: { site_id: first.site.siteId, match_distance_km: first.site.matchDistanceKm },
    })
  })

  it.each([
    ['alive above planted', { alive: 41 }, 'invalid_request', 400, 'alive'],
    [
      'a survey 0.2 years after planting',
      { plantedOn: '2024-01-01', surveyedOn: '2024-03-01' },
      'invalid_request',
      400,
      'surveyed_on',
    ],
    ['30 February', { plantedOn: '2021-02-30' }, 'invalid_request', 400, 'planted_on'],
    ['the plot id "report"', { plotId: 'report' }, 'invalid_request', 400, 'plot_id'],
    ['planted 0', { planted: 0 }, 'invalid_request', 400, 'planted'],
    ['an area of 0', { plotAreaM2: 0 }, 'invalid_request', 400, 'plot_area_m2'],
    ['an unknown species', { speciesCode: 'PSMA' }, 'invalid_species', 422, 'species_code'],
    ['an unknown method', { plantingMethod: 'hovercraft' }, 'invalid_method', 422, 'planting_method'],
    ['a point outside Oregon and Washington', OUTSIDE_POINTS.boise, 'outside_coverage', 422, 'latitude'],
  ])(
    'refuses %s: all or nothing, with REST’s code and details {index, field, reason}',
    async (_label, overrides, code, status, field) => {
      const result = await store(owner.key, [plot({ plotId: 'never-kept' }), plot(overrides)])
      const error = refusal(result, status, code)
      expect(error.extensions?.details).toMatchObject({ index: 1, field })
      expect(error.path).toEqual(['storeSurveys'])
      expect(await storedRows('never-kept')).toBe(0)
    },
  )

  it('takes 1 to 1,000 plots: an empty list and 1,001 plots are invalid_request naming `plots`', async () => {
    const empty = refusal(await store(owner.key, []), 400, 'invalid_request')
    expect(empty.extensions?.details).toMatchObject({ field: 'plots', reason: 'must hold at least one plot' })
    const many = Array.from({ length: 1001 }, (_, i) => plot({ plotId: `never-kept-${i}` }))
    const over = refusal(await store(owner.key, many), 400, 'invalid_request')
    expect(over.extensions?.details).toMatchObject({ field: 'plots' })
    expect(await storedRows('never-kept-0')).toBe(0)
  })

  it('is once per operation: two aliased storeSurveys are refused before either stores', async () => {
    const twice = `mutation Twice($a: [SurveyPlotInput!]!, $b: [SurveyPlotInput!]!) {
      a: storeSurveys(plots: $a) { stored } b: storeSurveys(plots: $b) { stored } }`
    const result = await send(twice, owner.key, {
      a: [plot({ plotId: 'twice-a' })],
      b: [plot({ plotId: 'twice-b' })],
    })
    const error = refusal(result, 400, 'invalid_request')
    expect(error.extensions?.details).toMatchObject({ field: 'storeSurveys' })
    expect((await storedRows('twice-a')) + (await storedRows('twice-b'))).toBe(0)
  })

  it('holds surveys and surveyReport to once per operation too, fragments included', async () => {
    const reports = `query Reports { a: surveyReport { intervalLevel } ...More }
      fragment More on Query { b: surveyReport(filter: { speciesCode: "PSME" }) { intervalLevel } }`
    const refused = await send(reports, owner.key)
    expect(refusal(refused, 400, 'invalid_request').extensions?.details).toMatchObject({
      field: 'surveyReport',
    })
    const pages = await send('{ a: surveys { nextCursor } b: surveys(limit: 1) { nextCursor } }', owner.key)
    expect(refusal(pages, 400, 'invalid_request').extensions?.details).toMatchObject({ field: 'surveys' })
    // Different survey fields, and several plots read, pass together.
    const together =
      '{ surveys { nextCursor } surveyReport { intervalLevel } a: surveyPlot(plotId: "keep-1") { alive } }'
    expect(dataOf(await send(together, owner.key)).surveyReport).toEqual({ intervalLevel: 0.9 })
  })

  it('writes survey.stored to the audit log with the calling key and its client address’s hash, as REST does', async () => {
    const key = await issueKey(db, 'mycel')
    dataOf(await store(key.key, [plot({ plotId: 'audited' })]))
    const viaRest = await rest(server.url, 'POST', '/v1/surveys', {
      key: key.key,
      json: {
        plots: [
          {
            plot_id: 'audited-rest',
            ...FOREST_POINTS.coastRange,
            species_code: 'PSME',
            planting_method: 'manual',
            planted_on: '2021-03-15',
            surveyed_on: '2024-03-15',
            planted: 40,
            alive: 31,
          },
        ],
      },
    })
    expect(viaRest.status, viaRest.text).toBe(200)
    const events = await db.sql<{ kind: string; actor: string; keyId: string; addressHash: string | null }[]>`
      SELECT kind, actor, key_id, address_hash FROM audit_events
      WHERE key_id = ${key.id} AND kind = 'survey.stored' ORDER BY created_at`
    expect(events).toHaveLength(2)
    const [graphqlEvent, restEvent] = events
    expect(graphqlEvent).toMatchObject({ actor: 'holder', keyId: key.id })
    expect(graphqlEvent?.addressHash).toMatch(/^[0-9a-f]{64}$/)
    expect(graphqlEvent?.addressHash).toBe(restEvent?.addressHash)
  })
})

describe('surveys and surveyPlot', () => {
  it('pages the account’s surveys by plotId then surveyedOn, with a cursor and filters', async () => {
    const key = await issueKey(db, 'mycel')
    const points = forestGrid(5)
    dataOf(
      await store(
        key.key,
        points.map((point, i) =>
          plot({ plotId: `p-${i}`, ...point, speciesCode: i % 2 === 0 ? 'PSME' : 'THPL' }),
        ),
      ),
    )
    const first = dataOf(await send(LIST, key.key, { limit: 2 })).surveys
    expect(first.plots.map((p: Body) => p.plotId)).toEqual(['p-0', 'p-1'])
    expect(first.nextCursor).toEqual(expect.any(String))
    const second = dataOf(await send(LIST, key.key, { limit: 2, cursor: first.nextCursor })).surveys
    expect(second.plots.map((p: Body) => p.plotId)).toEqual(['p-2', 'p-3'])
    const last = dataOf(await send(LIST, key.key, { limit: 2, cursor: second.nextCursor })).surveys
    expect(last).toEqual({
      plots: [{ plotId: 'p-4', surveyedOn: '2024-03-15', speciesCode: 'PSME' }],
      nextCursor: null,
    })

    // The default page holds them all; the filters narrow it as REST's query string does.
    expect(dataOf(await send(LIST, key.key)).surveys.plots).toHaveLength(5)
    const cedar = dataOf(await send(LIST, key.key, { filter: { speciesCode: 'THPL' } })).surveys.plots
    expect(cedar.map((p: Body) => p.plotId)).toEqual(['p-1', 'p-3'])
    const restCedar = await rest(server.url, 'GET', '/v1/surveys?species_code=THPL', { key: key.key })
    expect((restCedar.body as { plots: { plot_id: string }[] }).plots.map((p) => p.plot_id)).toEqual([
      'p-1',
      'p-3',
    ])
    const [west, south] = [points[0]?.longitude as number, points[0]?.latitude as number]
    const boxed = await send(LIST, key.key, {
      filter: { bbox: [west - 0.001, south - 0.001, west + 0.001, south + 0.001] },
    })
    expect(dataOf(boxed).surveys.plots.map((p: Body) => p.plotId)).toEqual(['p-0'])
    const later = await send(LIST, key.key, { filter: { surveyedFrom: '2024-03-16' } })
    expect(dataOf(later).surveys.plots).toEqual([])
  })

  it.each([
    ['a limit of 0', { limit: 0 }, 'limit'],
    ['a limit of 1,001', { limit: 1001 }, 'limit'],
    ['a cursor it did not hand out', { cursor: 'bm90IGEgY3Vyc29y' }, 'cursor'],
    ['a bbox of three numbers', { filter: { bbox: [-124, 44, -123] } }, 'filter.bbox'],
    ['a bbox west of its east', { filter: { bbox: [-123, 44, -124, 45] } }, 'filter.bbox'],
    ['30 February as a bound', { filter: { surveyedTo: '2024-02-30' } }, 'filter.surveyedTo'],
  ])('refuses %s with invalid_request naming it', async (_label, variables, field) => {
    const error = refusal(await send(LIST, owner.key, variables), 400, 'invalid_request')
    expect(error.extensions?.details).toMatchObject({ field })
  })

  it('reads every survey of one plot, oldest first; a plot without surveys is not_found (404)', async () => {
    const key = await issueKey(db, 'mycel')
    dataOf(
      await store(key.key, [
        plot({ plotId: 'Unit 4/NE', surveyedOn: '2025-03-15', alive: 20 }),
        plot({ plotId: 'Unit 4/NE', alive: 30 }),
      ]),
    )
    const surveys = dataOf(await send(PLOT, key.key, { plotId: 'Unit 4/NE' })).surveyPlot
    expect(surveys.map((s: Body) => [s.surveyedOn, s.alive])).toEqual([
      ['2024-03-15', 30],
      ['2025-03-15', 20],
    ])
    const missing = refusal(await send(PLOT, key.key, { plotId: 'nowhere' }), 404, 'not_found')
    expect(missing.message).toMatch(/nowhere/)
  })
})

describe('surveyReport', () => {
  let key: IssuedKey

  beforeAll(async () => {
    key = await issueKey(db, 'mycel')
    const plots = forestGrid(24).map((point, i) =>
      plot({
        plotId: `r-${i}`,
        ...point,
        speciesCode: i % 3 === 0 ? 'THPL' : 'PSME',
        plantingMethod: i % 4 === 0 ? 'drone_seeded' : 'manual',
        plantedOn: i % 2 === 0 ? '2020-04-01' : '2023-04-01',
        surveyedOn: '2024-10-01',
        planted: 30 + (i % 5) * 10,
        alive: Math.floor((30 + (i % 5) * 10) * (0.55 + (i % 7) * 0.05)),
      }),
    )
    dataOf(await store(key.key, plots))
  })

  it.each([
    ['every plot', undefined, ''],
    ['one species', { speciesCode: 'THPL' }, '?species_code=THPL'],
    [
      'one method in a box',
      { plantingMethod: 'MANUAL', bbox: [-124, 44, -123, 45] },
      '?planting_method=manual&bbox=-124,44,-123,45',
    ],
  ])(
    'gives the numbers of GET /v1/surveys/report over %s, field for field',
    async (_label, filter, query) => {
      const viaGraphQL = dataOf(await send(REPORT, key.key, { filter })).surveyReport
      const viaRest = await rest(server.url, 'GET', `/v1/surveys/report${query}`, { key: key.key })
      expect(viaRest.status, viaRest.text).toBe(200)
      expect(viaGraphQL.overall.plots).toBeGreaterThan(0)
      expect(asRestReport(viaGraphQL)).toEqual(viaRest.body)
    },
  )

  it('reports nothing, with a note, when the filter keeps no plot, as REST does', async () => {
    const empty = dataOf(await send(REPORT, key.key, { filter: { speciesCode: 'ABGR' } })).surveyReport
    expect(empty).toEqual({
      modelVersion: '0.2',
      intervalLevel: 0.9,
      overall: null,
      groups: [],
      scores: null,
      reliability: [],
      notes: ['No plot matches: there is nothing to compare.'],
    })
    const viaRest = await rest(server.url, 'GET', '/v1/surveys/report?species_code=ABGR', { key: key.key })
    expect(asRestReport(empty)).toEqual(viaRest.body)
  })
})

describe('deleteSurveyPlot and deleteAllSurveys', () => {
  it('delete one plot, every survey of it, then every plot with confirm: true only', async () => {
    const key = await issueKey(db, 'mycel')
    dataOf(
      await store(key.key, [
        plot({ plotId: 'gone' }),
        plot({ plotId: 'gone', surveyedOn: '2025-01-10' }),
        plot({ plotId: 'stays' }),
        plot({ plotId: 'stays-too' }),
      ]),
    )
    expect(dataOf(await send(DELETE_PLOT, key.key, { plotId: 'gone' })).deleteSurveyPlot).toBe(2)
    refusal(await send(DELETE_PLOT, key.key, { plotId: 'gone' }), 404, 'not_found')

    const unconfirmed = refusal(await send(DELETE_ALL, key.key, { confirm: false }), 400, 'invalid_request')
    expect(unconfirmed.extensions?.details).toMatchObject({ field: 'confirm' })
    expect(dataOf(await send(LIST, key.key)).surveys.plots).toHaveLength(2)

    expect(dataOf(await send(DELETE_ALL, key.key, { confirm: true })).deleteAllSurveys).toBe(2)
    expect(dataOf(await send(LIST, key.key)).surveys).toEqual({ plots: [], nextCursor: null })
    expect(dataOf(await send(DELETE_ALL, key.key, { confirm: true })).deleteAllSurveys).toBe(0)

    // An event for each change, none for a deletion that found nothing.
    const events = await db.sql<{ kind: string; details: Record<string, unknown> }[]>`
      SELECT kind, details FROM audit_events WHERE key_id = ${key.id} AND kind LIKE 'survey.%' ORDER BY created_at`
    expect(events.map((row) => [row.kind, row.details])).toEqual([
      ['survey.stored', { surveys: 4 }],
      ['survey.deleted', { plot_id: 'gone', all: false, surveys: 2 }],
      ['survey.deleted', { plot_id: null, all: true, surveys: 2 }],
    ])
  })

  it('is never run over GET (yoga answers 405) and deletes nothing', async () => {
    const key = await issueKey(db, 'mycel')
    dataOf(await store(key.key, [plot({ plotId: 'kept-over-get' })]))
    const query = encodeURIComponent('mutation { deleteAllSurveys(confirm: true) }')
    const response = await fetch(`${server.url}/graphql?query=${query}`, {
      headers: { 'x-api-key': key.key, accept: 'application/graphql-response+json' },
    })
    expect(response.status).toBe(405)
    expect(await storedRows('kept-over-get')).toBe(1)
  })
})

describe('another account', () => {
  it('sees none of the owner’s plots and can delete none of them', async () => {
    dataOf(await store(owner.key, [plot({ plotId: 'owned' })]))
    const before = await storedRows('owned')

    expect(dataOf(await send(LIST, other.key)).surveys).toEqual({ plots: [], nextCursor: null })
    refusal(await send(PLOT, other.key, { plotId: 'owned' }), 404, 'not_found')
    const report = dataOf(await send(REPORT, other.key)).surveyReport
    expect(report).toMatchObject({ overall: null, scores: null, groups: [] })
    refusal(await send(DELETE_PLOT, other.key, { plotId: 'owned' }), 404, 'not_found')
    expect(dataOf(await send(DELETE_ALL, other.key, { confirm: true })).deleteAllSurveys).toBe(0)

    expect(await storedRows('owned')).toBe(before)
    expect(dataOf(await send(PLOT, owner.key, { plotId: 'owned' })).surveyPlot).toHaveLength(1)

    // The same plot id sent by the other account is its own plot: the owner's stays as it was.
    dataOf(await store(other.key, [plot({ plotId: 'owned', alive: 5 })]))
    expect(
      dataOf(await send(PLOT, other.key, { plotId: 'owned' })).surveyPlot.map((s: Body) => s.alive),
    ).toEqual([5])
    expect(
      dataOf(await send(PLOT, owner.key, { plotId: 'owned' })).surveyPlot.map((s: Body) => s.alive),
    ).toEqual([31])
    expect(dataOf(await send(DELETE_ALL, other.key, { confirm: true })).deleteAllSurveys).toBe(1)
    expect(await storedRows('owned')).toBe(before)
  })
})

describe('keys and counting', () => {
  const OPERATIONS: [string, string, Record<string, unknown>][] = [
    ['storeSurveys', STORE, { plots: [plot({ plotId: 'no-key' })] }],
    ['surveys', LIST, {}],
    ['surveyPlot', PLOT, { plotId: 'owned' }],
    ['surveyReport', REPORT, {}],
    ['deleteSurveyPlot', DELETE_PLOT, { plotId: 'owned' }],
    ['deleteAllSurveys', DELETE_ALL, { confirm: true }],
  ]

  it.each(OPERATIONS)(
    '%s without a key is 401 invalid_api_key and does nothing',
    async (_name, query, variables) => {
      dataOf(await store(owner.key, [plot({ plotId: 'owned' })]))
      refusal(await send(query, undefined, variables), 401, 'invalid_api_key')
      expect(await storedRows('no-key')).toBe(0)
      expect(await storedRows('owned')).toBe(1)
    },
  )

  it('counts each operation as one request, whatever it does, however many survey fields it holds', async () => {
    const key = await issueKey(db, 'mycel')
    const remaining: number[] = []
    const counted = async (query: string, variables: Record<string, unknown>) => {
      const result = await send(query, key.key, variables)
      remaining.push(Number(result.headers.get('x-ratelimit-remaining')))
      return result
    }
    dataOf(await counted(STORE, { plots: [plot({ plotId: 'c-1' }), plot({ plotId: 'c-2' })] }))
    dataOf(await counted(LIST, {}))
    dataOf(await counted(PLOT, { plotId: 'c-1' }))
    dataOf(await counted(REPORT, {}))
    const together = `query Together { surveys { nextCursor } surveyPlot(plotId: "c-1") { alive }
      surveyReport { intervalLevel } }`
    dataOf(await counted(together, {}))
    dataOf(await counted(DELETE_PLOT, { plotId: 'c-1' }))
    // Refused after admission: still one request.
    await counted(DELETE_PLOT, { plotId: 'c-1' })
    dataOf(await counted(DELETE_ALL, { confirm: true }))
    expect(remaining).toEqual(Array.from({ length: 8 }, (_, i) => 9999 - i))

    const viewer = dataOf(await send('{ viewer { today { used } } }', key.key)).viewer
    expect(viewer.today.used).toBe(9)
  })
})

describe('surveyUpload', () => {
  const UPLOAD = `query Upload($uploadId: String!, $limit: Int, $cursor: String) {
    surveyUpload(uploadId: $uploadId, limit: $limit, cursor: $cursor) {
      uploadId status format skipInvalid rows validRows refusedRows stored ignoredColumns
      failure { code message } createdAt finishedAt refused { row plotId field code reason } nextCursor } }`

  it('reads an upload and pages its refused rows as GET /v1/surveys/uploads/{id} does', async () => {
    const { latitude, longitude } = FOREST_POINTS.coastRange
    const rows = Array.from(
      { length: 5 },
      (_, i) => `gq-${i},${latitude},${longitude},PSME,manual,2021,2024-03-15,40,${i < 2 ? 30 : 50}`,
    )
    const sent = await rest(server.url, 'POST', '/v1/surveys/uploads?skip_invalid=true', {
      key: owner.key,
      raw: `plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive,crew\n${rows.map((row) => `${row},a`).join('\n')}`,
      contentType: 'text/csv',
    })
    expect(sent.status, sent.text).toBe(201)
    const uploadId = sent.body.upload_id
    const first = (await graphql(server.url, UPLOAD, { key: owner.key, variables: { uploadId, limit: 2 } }))
      .body as Body
    expect(first.errors).toBeUndefined()
    expect(first.data.surveyUpload).toMatchObject({
      uploadId,
      status: 'committed',
      format: 'csv',
      skipInvalid: true,
      rows: 5,
      validRows: 2,
      refusedRows: 3,
      stored: 2,
      ignoredColumns: ['crew'],
      failure: null,
    })
    expect(first.data.surveyUpload.refused.map((r: { row: number }) => r.row)).toEqual([3, 4])
    const rest2 = (
      await graphql(server.url, UPLOAD, {
        key: owner.key,
        variables: { uploadId, cursor: first.data.surveyUpload.nextCursor },
      })
    ).body as Body
    expect(rest2.data.surveyUpload.refused).toEqual([
      {
        row: 5,
        plotId: 'gq-4',
        field: 'alive',
        code: 'invalid_request',
        reason: 'must be at most planted (40)',
      },
    ])
    expect(rest2.data.surveyUpload.nextCursor).toBeNull()
    const hidden = await graphql(server.url, UPLOAD, { key: other.key, variables: { uploadId } })
    expect(firstError(hidden).extensions?.code).toBe('not_found')
  })
})
