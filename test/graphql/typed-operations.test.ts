import { readFileSync } from 'node:fs'
import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { print, validate } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generate } from '../../codegen.ts'
import { schema } from '../../src/graphql/schema/schema.ts'
import { graphql } from '../support/graphql-helpers.ts'
import { type SeededServer, startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import { FOREST_POINTS, OUTSIDE_POINTS } from '../support/sites.ts'
import {
  CompareMethodsDocument,
  PredictBatchDocument,
  PredictDocument,
  ServiceInfoDocument,
  SpeciesCatalogueDocument,
} from './generated/operations.ts'

const DOCUMENTS = [
  PredictDocument,
  CompareMethodsDocument,
  PredictBatchDocument,
  SpeciesCatalogueDocument,
  ServiceInfoDocument,
]

/** Sends a typed document; the result's data has the type codegen derived from it. */
async function send<TData, TVariables extends Record<string, unknown>>(
  url: string,
  document: TypedDocumentNode<TData, TVariables>,
  variables: TVariables,
  key: string,
): Promise<{ status: number; data: TData; errors?: unknown[] }> {
  const result = await graphql(url, print(document), { key, variables })
  return { status: result.status, data: result.body.data as TData, errors: result.body.errors }
}

describe('typed GraphQL documents (codegen.ts)', () => {
  it('are current with documents/operations.graphql and schema/schema.graphql (run `npm run codegen`)', async () => {
    for (const [file, code] of await generate()) {
      expect(readFileSync(file, 'utf8'), file).toBe(code)
    }
  })

  it('validate against the live schema', () => {
    for (const document of DOCUMENTS) expect(validate(schema, document)).toEqual([])
  })
})

describe('typed GraphQL documents against a live server', () => {
  let running: SeededServer
  beforeAll(async () => {
    running = await startSeededServer()
  })
  afterAll(() => stopSeededServer(running))

  it('Predict: the typed result carries the prediction', async () => {
    const result = await send(
      running.server.url,
      PredictDocument,
      { input: { ...FOREST_POINTS.coastRange, speciesCode: 'PSME', plantingMethod: 'MANUAL' } },
      running.key,
    )
    expect(result.errors).toBeUndefined()
    const prediction = result.data.predict
    expect(prediction?.speciesCode).toBe('PSME')
    expect(prediction?.predictions.map((p) => p.horizonYears)).toEqual([1, 3, 5])
    for (const horizon of prediction?.predictions ?? []) {
      const sum = horizon.allFactors.reduce((total, f) => total + f.contribution, horizon.baselineLogOdds)
      expect(sum).toBeCloseTo(horizon.logOdds, 9)
    }
  })

  it('CompareMethods: the differential is manual − droneSeeded', async () => {
    const result = await send(
      running.server.url,
      CompareMethodsDocument,
      { input: { ...FOREST_POINTS.westCascades, speciesCode: 'TSHE' } },
      running.key,
    )
    for (const gap of result.data.compareMethods?.methodDifferential ?? []) {
      expect(gap.difference).toBeCloseTo(gap.manual - gap.droneSeeded, 12)
    }
    expect(result.data.compareMethods?.methodDifferential).toHaveLength(3)
  })

  it('PredictBatch: per-item predictions and errors in order', async () => {
    const result = await send(
      running.server.url,
      PredictBatchDocument,
      {
        sites: [
          { ...FOREST_POINTS.coastRange, speciesCode: 'PSME', plantingMethod: 'manual' },
          { ...OUTSIDE_POINTS.boise, speciesCode: 'PIPO', plantingMethod: 'drone_seeded' },
        ],
      },
      running.key,
    )
    expect(
      result.data.predictBatch.map((item) => [item.index, !!item.prediction, item.error?.code ?? null]),
    ).toEqual([
      [0, true, null],
      [1, false, 'outside_coverage'],
    ])
  })

  it('SpeciesCatalogue and ServiceInfo: catalogue and service fields', async () => {
    const catalogue = await send(
      running.server.url,
      SpeciesCatalogueDocument,
      { group: 'HARDWOOD' },
      running.key,
    )
    expect(catalogue.data.species).toHaveLength(4)
    expect(catalogue.data.plantingMethods.map((m) => m.id)).toEqual(['MANUAL', 'DRONE_SEEDED'])
    const info = await send(running.server.url, ServiceInfoDocument, {}, running.key)
    expect(info.data.health.status).toBe('healthy')
    expect(info.data.modelFactors.length).toBeGreaterThan(5)
    expect(info.data.coverage.region).toBe('pnw')
  })
})
