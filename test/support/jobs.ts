import { parse } from 'csv-parse/sync'
import { expect } from 'vitest'
import { rest } from '../rest/client.ts'
import { forestGrid } from './sites.ts'

/** A CSV portfolio of `rows` rows with ids r1…rN at distinct forest points (Douglas-fir, hand planted). */
export function portfolioCsv(rows: number): string {
  const points = forestGrid(rows)
  return [
    'id,latitude,longitude,species_code,planting_method',
    ...points.map((p, i) => `r${i + 1},${p.latitude},${p.longitude},PSME,manual`),
    '',
  ].join('\n')
}

export interface JobStatus {
  status: string
  rows_total: number
  rows_done: number
}

export async function jobStatus(url: string, key: string, id: string): Promise<JobStatus> {
  return (await rest(url, 'GET', `/v1/jobs/${id}`, { key })).body as JobStatus
}

/** Every input row once, in input order: the ids of the results are exactly r1…rN, each one answered. */
export async function expectEveryRowOnce(url: string, key: string, id: string, rows: number): Promise<void> {
  const results = await rest(url, 'GET', `/v1/jobs/${id}/results`, { key })
  expect(results.status).toBe(200)
  const answered = parse(results.text, { columns: true }) as {
    id: string
    survival_1y: string
    error_code: string
  }[]
  expect(answered.length).toBe(rows)
  const outOfPlace = answered.findIndex((row, index) => row.id !== `r${index + 1}`)
  expect(outOfPlace).toBe(-1)
  expect(answered.filter((row) => row.survival_1y === '' && row.error_code === '')).toEqual([])
}
