import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { firstError, graphql } from '../support/graphql-helpers.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'

let db: TestDatabase
let server: TestServer
let key: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer({}, 'hypha'))
})

afterAll(() => stopSeededServer({ db, server }))

const PREDICT = `query ($input: PredictionInput!) {
  predict(input: $input) {
    predictions {
      horizonYears survivalProbability logOdds baselineLogOdds
      allFactors { key contribution untreatedContribution }
      survivalInterval { lower upper }
      treatment { untreatedSurvivalProbability untreatedLogOdds effectSd
        factors { key contribution untreatedContribution treatments } }
    }
    treatments { vegetationControl animalProtection stockType shade dataVersion
      effects { treatment value effectId status reduction reductionSd oddsRatio figureKind sources { title year } } }
  }
}`

const site = { latitude: 44.6, longitude: -123.6, speciesCode: 'PSME', plantingMethod: 'MANUAL' }
const predict = (input: Record<string, unknown>) =>
  graphql(server.url, PREDICT, { key, variables: { input } })

describe('GraphQL treatments', () => {
  it('predict takes TreatmentsInput: treated contributions beside untreated ones, exact explanations', async () => {
    const result = await predict({
      ...site,
      treatments: { vegetationControl: 'RELEASE_2YR', animalProtection: 'MESH_TUBES' },
    })
    expect(result.body.errors).toBeUndefined()
    const p = result.body.data.predict
    expect(p.treatments).toMatchObject({
      vegetationControl: 'release_2yr',
      animalProtection: 'mesh_tubes',
      stockType: null,
    })
    expect(p.treatments.effects.map((e: { status: string }) => e.status)).toEqual(['SYNTHESIS', 'SYNTHESIS'])
    for (const h of p.predictions) {
      const explained = h.allFactors.reduce(
        (sum: number, f: { contribution: number }) => sum + f.contribution,
        h.baselineLogOdds,
      )
      expect(explained).toBeCloseTo(h.logOdds, 9)
      expect(h.survivalProbability).toBeGreaterThan(h.treatment.untreatedSurvivalProbability)
      const veg = h.allFactors.find((f: { key: string }) => f.key === 'competing_vegetation')
      expect(veg.untreatedContribution).not.toBeNull()
      expect(veg.contribution).toBeGreaterThan(veg.untreatedContribution)
      expect(h.allFactors.find((f: { key: string }) => f.key === 'slope').untreatedContribution).toBeNull()
    }
  })

  it('without treatments the new fields are null; with a stock type the interval widens around the same survival', async () => {
    const plain = (await predict(site)).body.data.predict
    expect(plain.treatments).toBeNull()
    expect(plain.predictions[0].treatment).toBeNull()
    const stock = (await predict({ ...site, treatments: { stockType: 'CONTAINER' } })).body.data.predict
    stock.predictions.forEach(
      (h: { survivalProbability: number; survivalInterval: { lower: number; upper: number } }, i: number) => {
        const before = plain.predictions[i]
        expect(h.survivalProbability).toBe(before.survivalProbability)
        expect(h.survivalInterval.lower).toBeLessThanOrEqual(before.survivalInterval.lower)
        expect(h.survivalInterval.upper).toBeGreaterThanOrEqual(before.survivalInterval.upper)
      },
    )
  })

  it('answers invalid_treatment (422) for a treatment drone seeding cannot take, and refuses an unknown value', async () => {
    const drone = await predict({
      ...site,
      plantingMethod: 'DRONE_SEEDED',
      treatments: { shade: 'SHADE_CARDS' },
    })
    const error = firstError(drone)
    expect(error.extensions?.code).toBe('invalid_treatment')
    expect(error.extensions?.status).toBe(422)
    expect(error.extensions?.details).toEqual({
      treatment: 'shade',
      value: 'shade_cards',
      planting_method: 'drone_seeded',
    })
    const unknown = await predict({ ...site, treatments: { shade: 'UMBRELLA' } })
    expect(firstError(unknown).message).toMatch(/UMBRELLA.*Shade/)
  })

  it('compareMethods, speciesRanking, predictBatch and stockingPlan take treatments', async () => {
    const query = `{
      compareMethods(input: { latitude: 44.6, longitude: -123.6, speciesCode: "PSME",
          treatments: { vegetationControl: SITE_PREP } }) {
        treatments { manual { effects { status } } droneSeeded { effects { status } } }
      }
      speciesRanking(latitude: 44.6, longitude: -123.6, plantingMethod: MANUAL, horizon: 5,
          treatments: { animalProtection: MESH_TUBES }) {
        treatments { animalProtection } ranking { survivalProbability untreatedSurvivalProbability }
      }
      predictBatch(sites: [
        { latitude: 44.6, longitude: -123.6, speciesCode: "PSME", plantingMethod: "manual", treatments: { shade: SHADE_CARDS } },
        { latitude: 44.6, longitude: -123.6, speciesCode: "PSME", plantingMethod: "drone_seeded", treatments: { shade: SHADE_CARDS } }
      ]) { prediction { treatments { shade } } error { code } }
      stockingPlan(input: { latitude: 44.6, longitude: -123.6, plantingMethod: MANUAL,
          speciesMix: [{ speciesCode: "PSME", share: 1 }], treesPerAcre: 300,
          treatments: { vegetationControl: RELEASE_2YR } }) {
        treatments { effects { value } } meetsProbability
      }
    }`
    const result = await graphql(server.url, query, { key })
    expect(result.body.errors).toBeUndefined()
    const data = result.body.data
    expect(data.compareMethods.treatments.droneSeeded.effects[0].status).toBe('ASSUMPTION')
    expect(data.speciesRanking.treatments.animalProtection).toBe('mesh_tubes')
    for (const r of data.speciesRanking.ranking)
      expect(r.survivalProbability).toBeGreaterThanOrEqual(r.untreatedSurvivalProbability)
    expect(data.predictBatch[0].prediction.treatments.shade).toBe('shade_cards')
    expect(data.predictBatch[1].error.code).toBe('invalid_treatment')
    expect(data.stockingPlan.treatments.effects[0].value).toBe('release_2yr')
  })
})

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read freely in tests
type CatalogueBody = { data_version: string; treatments: unknown[]; effects: Record<string, any>[] }

describe('treatmentCatalogue', () => {
  it('lists what GET /v1/treatments lists, effect by effect', async () => {
    const result = await graphql(
      server.url,
      `{ treatmentCatalogue { dataVersion treatments { name values }
        effects { id treatment values factors figureKind figureValue figureRange figureHorizonYears
          oddsRatio oddsRatioRange reduction reductionRange reductionSd status
          droneSeeding { applies status note reason } basis sources { title publisher year url } note } } }`,
      { key },
    )
    expect(result.body.errors).toBeUndefined()
    const catalogue = result.body.data.treatmentCatalogue
    const response = await fetch(`${server.url}/v1/treatments`, { headers: { 'X-API-Key': key } })
    expect(response.status).toBe(200)
    const rest = (await response.json()) as CatalogueBody
    expect(catalogue.dataVersion).toBe(rest.data_version)
    expect(catalogue.treatments).toEqual(rest.treatments)
    expect(catalogue.effects).toHaveLength(rest.effects.length)
    rest.effects.forEach((e, i) => {
      const { droneSeeding, status, ...shown } = catalogue.effects[i]
      expect(shown).toEqual({
        id: e.id,
        treatment: e.treatment,
        values: e.values,
        factors: e.factors,
        figureKind: e.figure.kind,
        figureValue: e.figure.value,
        figureRange: e.figure.range,
        figureHorizonYears: e.figure.horizon_years,
        oddsRatio: e.odds_ratio,
        oddsRatioRange: e.odds_ratio_range,
        reduction: e.reduction,
        reductionRange: e.reduction_range,
        reductionSd: e.reduction_sd,
        basis: e.basis,
        sources: e.sources,
        note: e.note,
      })
      expect(status).toBe(e.status.toUpperCase())
      expect(droneSeeding).toEqual(
        e.drone_seeding.applies
          ? {
              applies: true,
              status: e.drone_seeding.status.toUpperCase(),
              note: e.drone_seeding.note,
              reason: null,
            }
          : { applies: false, status: null, note: null, reason: e.drone_seeding.reason },
      )
    })
    // Every effect an answer names is listed.
    const answered = await predict({
      ...site,
      treatments: { vegetationControl: 'RELEASE_2YR', animalProtection: 'MESH_TUBES', shade: 'SHADE_CARDS' },
    })
    const ids = new Set(catalogue.effects.map((e: { id: string }) => e.id))
    expect(answered.body.data.predict.treatments.dataVersion).toBe(catalogue.dataVersion)
    const named = answered.body.data.predict.treatments.effects.map((e: { effectId: string }) => e.effectId)
    expect(named).toHaveLength(3)
    for (const id of named) expect(ids).toContain(id)
  })
})
