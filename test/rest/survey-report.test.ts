import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { surveyStatistics } from '../../src/domain/surveys/survey-statistics.ts'
import type { IssuedKey } from '../../src/types.ts'
import type { TestDatabase } from '../support/database.ts'
import { createSeededDatabase, issueKey } from '../support/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { forestGrid } from '../support/sites.ts'
import { rest } from './client.ts'

/**
 * GET /v1/surveys/report over HTTP: the numbers are those of the statistics over the plots as stored,
 * the list's filters narrow it, and an account with no plots gets an empty report, not an error.
 */
let db: TestDatabase
let server: TestServer
let key: IssuedKey

beforeAll(async () => {
  db = await createSeededDatabase()
  server = await startTestServer({ database: db })
  key = await issueKey(db, 'mycel')
  const points = forestGrid(24)
  const plots = points.map((point, i) => ({
    plot_id: `r-${i}`,
    ...point,
    species_code: i % 3 === 0 ? 'THPL' : 'PSME',
    planting_method: i % 4 === 0 ? 'drone_seeded' : 'manual',
    planted_on: i % 2 === 0 ? '2020-04-01' : '2023-04-01',
    surveyed_on: '2024-10-01',
    planted: 30 + (i % 5) * 10,
    alive: Math.floor((30 + (i % 5) * 10) * (0.55 + (i % 7) * 0.05)),
  }))
  const stored = await rest(server.url, 'POST', '/v1/surveys', { key: key.key, json: { plots } })
  expect(stored.status, stored.text).toBe(200)
})

afterAll(async () => {
  await server?.close()
  await db?.drop()
})

interface ReportBody {
  interval_level: number
  overall: {
    plots: number
    trees_planted: number
    observed_survival: number
    mean_predicted_survival: number
  } | null
  groups: { species_code: string; planting_method: string; age_band: string | null; plots: number }[]
  scores: { brier: number; log_loss: number; calibration_in_the_large: { estimate: number } } | null
  reliability: { plots: number }[]
  notes: string[]
}

describe('GET /v1/surveys/report', () => {
  it('gives the statistics of the plots as stored, the same on every call', async () => {
    const first = await rest(server.url, 'GET', '/v1/surveys/report', { key: key.key })
    expect(first.status, first.text).toBe(200)
    const again = await rest(server.url, 'GET', '/v1/surveys/report', { key: key.key })
    expect(again.text).toBe(first.text)
    const body = first.body as ReportBody
    const rows = await db.sql<
      {
        speciesCode: string
        plantingMethod: 'manual' | 'drone_seeded'
        planted: number
        alive: number
        predicted: number
        ageYears: number
      }[]
    >`SELECT species_code, planting_method, planted, alive, predicted, age_years FROM survey_plots`
    const expected = surveyStatistics(rows)
    expect(body.interval_level).toBe(0.9)
    expect(body.overall?.plots).toBe(24)
    expect(body.overall?.observed_survival).toBeCloseTo(expected.groups[0]?.observed as number, 12)
    expect(body.overall?.mean_predicted_survival).toBeCloseTo(expected.groups[0]?.meanPredicted as number, 12)
    expect(body.scores?.brier).toBeCloseTo(expected.brier, 12)
    expect(body.scores?.log_loss).toBeCloseTo(expected.logLoss, 12)
    expect(body.scores?.calibration_in_the_large.estimate).toBeCloseTo(
      expected.calibrationInTheLarge.estimate,
      10,
    )
    expect(body.reliability).toHaveLength(10)
    expect(body.reliability.reduce((sum, bin) => sum + bin.plots, 0)).toBe(24)
    // Species × method, then its age bands: both age bands of the data appear.
    const bands = new Set(body.groups.map((g) => g.age_band))
    expect(bands).toEqual(new Set([null, 'under_2', 'over_4']))
  })

  it('narrows to the list’s filters', async () => {
    const cedar = await rest(server.url, 'GET', '/v1/surveys/report?species_code=THPL', { key: key.key })
    const body = cedar.body as ReportBody
    expect(body.overall?.plots).toBe(8)
    expect(new Set(body.groups.map((g) => g.species_code))).toEqual(new Set(['THPL']))
  })

  it('reports nothing, with a note, for an account without plots', async () => {
    const empty = await issueKey(db, 'spore')
    const report = await rest(server.url, 'GET', '/v1/surveys/report', { key: empty.key })
    expect(report.status).toBe(200)
    expect(report.body).toMatchObject({ overall: null, scores: null, groups: [], reliability: [] })
  })
})
