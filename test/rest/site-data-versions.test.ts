import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { activateSiteVersion } from '../../src/db/site-data-versions.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { jobStatus, portfolioCsv } from '../support/jobs.ts'
import { type SeededServer, startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { activeVersionName, keepChangedVersion } from '../support/site-versions.ts'
import { forestGrid, predictBodies, predictBody } from '../support/sites.ts'
import { eventually } from '../support/waiting.ts'
import { get, post, rest } from './client.ts'

/**
 * Every answer names the site data it came from, and an activation swaps the data atomically while the
 * service runs: no request fails, none mixes two versions (docs/site-data.md).
 */

let running: SeededServer
let original: string
/** The same points drier and more overgrown: every answer differs from the original's. */
let drier: string

beforeAll(async () => {
  running = await startSeededServer()
  original = await activeVersionName(running.db.sql)
  drier = await keepChangedVersion(running.db.sql, (site) => ({
    ...site,
    summerWaterDeficitMm: site.summerWaterDeficitMm + 120,
    vegetationCoverPct: Math.min(100, site.vegetationCoverPct + 30),
  }))
})

afterAll(() => stopSeededServer(running))

const POINTS = forestGrid(24)
const survivalAt5 = (body: { predictions: { horizon_years: number; survival_probability: number }[] }) =>
  body.predictions.find((p) => p.horizon_years === 5)?.survival_probability

/**
 * Activates `version` and waits until the server answers from it: the nearest-site index in memory
 * follows an activation within a poll (docs/site-data.md).
 */
async function activateAndFollow(version: string): Promise<void> {
  await activateSiteVersion(running.db.sql, version)
  const answeredFrom = async () =>
    (await post(running.server.url, '/v1/predict', predictBody(), running.key)).headers.get(
      'survival-data-version',
    )
  expect(await eventually(async () => (await answeredFrom()) === version, 1000)).toBe(true)
}

async function answersUnder(version: string): Promise<Map<string, number | undefined>> {
  await activateAndFollow(version)
  const answers = new Map<string, number | undefined>()
  for (const point of POINTS) {
    const answer = await post(running.server.url, '/v1/predict', predictBody(point), running.key)
    if (answer.status === 200) answers.set(`${point.latitude},${point.longitude}`, survivalAt5(answer.body))
  }
  return answers
}

describe('the data version on answers', () => {
  it('names the active version in a Survival-Data-Version header on predict, compare, rank, batch and plans', async () => {
    await activateSiteVersion(running.db.sql, original)
    const { url } = running.server
    const key = running.key
    const answers = [
      await post(url, '/v1/predict', predictBody(), key),
      await post(url, '/v1/predict/compare', { ...predictBody(), planting_method: undefined }, key),
      await post(url, '/v1/predict/rank', { ...predictBody(), species_code: undefined, horizon: 5 }, key),
      await post(url, '/v1/predict/batch', { sites: predictBodies(5) }, key),
      await post(
        url,
        '/v1/plans/stocking',
        {
          ...predictBody(),
          species_code: undefined,
          trees_per_acre: 300,
          species_mix: [{ species_code: 'PSME', share: 1 }],
        },
        key,
      ),
    ]
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200)
      expect(answer.headers.get('survival-data-version')).toBe(original)
    }
    await activateAndFollow(drier)
    const after = await post(url, '/v1/predict', predictBody(), key)
    expect(after.headers.get('survival-data-version')).toBe(drier)
    expect(survivalAt5(after.body)).not.toBe(survivalAt5(answers[0]?.body))
    // The /v1 body keeps the contract's fields: the version is named in the header alone.
    expect(after.text).not.toContain('sites_')
  })

  it('is in /v1/health as site_data, and in GraphQL as Site.dataVersion and StockingPlan.dataVersion', async () => {
    await activateAndFollow(drier)
    const health = await get(running.server.url, '/v1/health')
    expect(health.body.site_data).toMatchObject({
      version: drier,
      rows: expect.any(Number),
      source: 'changed.csv',
    })
    expect(health.body.site_data.rows).toBeGreaterThan(10_000)
    const { body } = await graphql(
      running.server.url,
      `query ($input: PredictionInput!, $plan: StockingPlanInput!) {
        predict(input: $input) { site { dataVersion } }
        stockingPlan(input: $plan) { dataVersion }
      }`,
      {
        key: running.key,
        variables: {
          input: { ...forestGrid(1)[0], speciesCode: 'PSME', plantingMethod: 'MANUAL' },
          plan: {
            ...forestGrid(1)[0],
            plantingMethod: 'MANUAL',
            treesPerAcre: 300,
            speciesMix: [{ speciesCode: 'PSME', share: 1 }],
          },
        },
      },
    )
    expect(body.errors).toBeUndefined()
    expect(body.data).toEqual({
      predict: { site: { dataVersion: drier } },
      stockingPlan: { dataVersion: drier },
    })
  })

  it('is in the job record: the versions its rows were scored from', async () => {
    await activateAndFollow(original)
    const { url } = running.server
    const accepted = await rest(url, 'POST', '/v1/jobs', {
      key: running.key,
      raw: portfolioCsv(30),
      contentType: 'text/csv',
    })
    expect(accepted.status, accepted.text).toBe(202)
    const id = accepted.body.id as string
    expect(
      await eventually(async () => (await jobStatus(url, running.key, id)).status === 'succeeded', 20_000),
    ).toBe(true)
    const job = await get(url, `/v1/jobs/${id}`, running.key)
    expect(job.body.data_versions).toEqual([original])
  })

  it('swaps under 16 connections of load: no request fails, and each answer is wholly of the version it names', async () => {
    const expected = new Map([
      [original, await answersUnder(original)],
      [drier, await answersUnder(drier)],
    ])
    const before = expected.get(original) as Map<string, number | undefined>
    const after = expected.get(drier) as Map<string, number | undefined>
    expect([...before].filter(([point, survival]) => after.get(point) !== survival).length).toBe(before.size)
    let swaps = 0
    let stop = false
    const swapper = (async () => {
      while (!stop) {
        await activateSiteVersion(running.db.sql, swaps % 2 === 0 ? original : drier)
        swaps += 1
        await new Promise((resolve) => setTimeout(resolve, 40))
      }
    })()
    const seen = new Map<string, number>()
    const failures: string[] = []
    const client = async (lane: number) => {
      for (let i = 0; !stop; i++) {
        const point = POINTS[(lane * 7 + i) % POINTS.length] as { latitude: number; longitude: number }
        const answer = await post(running.server.url, '/v1/predict', predictBody(point), running.key)
        const version = answer.headers.get('survival-data-version') ?? 'none'
        seen.set(version, (seen.get(version) ?? 0) + 1)
        const want = expected.get(version)?.get(`${point.latitude},${point.longitude}`)
        if (answer.status !== 200) failures.push(`${answer.status} ${answer.text}`)
        else if (survivalAt5(answer.body) !== want)
          failures.push(
            `${version} at ${point.latitude},${point.longitude}: ${survivalAt5(answer.body)} ≠ ${want}`,
          )
      }
    }
    const clients = Array.from({ length: 16 }, (_, lane) => client(lane))
    await new Promise((resolve) => setTimeout(resolve, 4000))
    stop = true
    await Promise.all([...clients, swapper])
    expect(failures).toEqual([])
    expect(swaps).toBeGreaterThanOrEqual(10)
    expect([...seen.keys()].sort()).toEqual([original, drier].sort())
  })
})
