import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { FOREST_POINTS } from '../../../test/support/fakes.ts'
import { runAll, setup } from '../../../test/support/job-service-setup.ts'
import { csvUpload, ndjsonUpload, owner, stream } from '../../../test/support/job-uploads.ts'
import type { StreamedUpload } from '../streamed-upload.ts'
import type { TreatmentsRequest } from '../treatment-values.ts'
import type { JobService } from './job-service.ts'

const { latitude, longitude } = FOREST_POINTS.coastRange
const HEADER = ['id', 'latitude', 'longitude', 'species_code', 'planting_method']
const TREATED_HEADER = [...HEADER, 'vegetation_control', 'animal_protection']

function csv(header: string[], rows: string[][]): StreamedUpload {
  return { format: 'csv', records: stream([header, ...rows]) }
}

const row = (id: string, method: string, ...treatments: string[]) => [
  id,
  String(latitude),
  String(longitude),
  'PSME',
  method,
  ...treatments,
]

/** Runs a job to the end and reads its whole results in `format`. */
async function finished(
  upload: StreamedUpload,
  treatments?: TreatmentsRequest,
  format: 'csv' | 'ndjson' = 'csv',
) {
  const { jobs, queue, charge, store } = setup()
  const job = await jobs.create(owner(), upload, charge, undefined, treatments)
  await runAll(jobs, queue)
  return { job, store, text: await resultText(jobs, job.id, format) }
}

async function resultText(jobs: JobService, id: string, format: 'csv' | 'ndjson' | 'geojson') {
  const plan = await jobs.results(owner(), id, format)
  let text = plan.header
  for await (const chunk of jobs.resultChunks(plan, 0)) text += chunk
  return text + plan.trailer
}

type ResultRow = Record<string, string>
const rowsOf = (text: string) => parse(text, { columns: true }) as ResultRow[]
const survival = (r: ResultRow | undefined) => Number(r?.survival_5y)

describe('JobService with treatments in the rows', () => {
  it('applies each row’s own columns; an empty cell is untreated; a bad value or a drone tube fails its row alone', async () => {
    const { text } = await finished(
      csv(TREATED_HEADER, [
        row('treated', 'manual', 'release_2yr', 'mesh_tubes'),
        row('plain', 'manual', '', ''),
        row('bad', 'manual', 'spray', ''),
        row('drone_tubes', 'drone_seeded', '', 'mesh_tubes'),
        row('drone_control', 'drone_seeded', 'release_2yr', ''),
        row('drone_plain', 'drone_seeded', '', ''),
      ]),
    )
    const [treated, plain, bad, droneTubes, droneControl, dronePlain] = rowsOf(text)
    expect(survival(treated)).toBeGreaterThan(survival(plain))
    expect(treated).toMatchObject({
      vegetation_control: 'release_2yr',
      animal_protection: 'mesh_tubes',
      error_code: '',
    })
    expect(bad).toMatchObject({ survival_5y: '', error_code: 'invalid_request' })
    expect(droneTubes).toMatchObject({ survival_5y: '', error_code: 'invalid_treatment' })
    expect(survival(droneControl)).toBeGreaterThan(survival(dronePlain))

    // The untreated row reads exactly as a job without treatment columns answers it.
    const untreated = rowsOf((await finished(csv(HEADER, [row('plain', 'manual')]))).text)[0]
    expect(plain?.survival_5y).toBe(untreated?.survival_5y)
    expect(plain?.top_factor_5y).toBe(untreated?.top_factor_5y)
  })

  it('says what a bad value should be, in the shape of every other row error', async () => {
    const { jobs, store, charge } = setup()
    const job = await jobs.create(owner(), csv(TREATED_HEADER, [row('bad', 'manual', 'spray', '')]), charge)
    const [stored] = JSON.parse(store.inputs.get(`${job.id}#0`) ?? '[]')
    expect(stored.e).toEqual({
      code: 'invalid_request',
      message:
        'vegetation_control must be one of none, site_prep, release_1yr, release_2yr, site_prep_release_1yr, site_prep_release_2yr',
    })
  })

  it('takes a predict body’s treatments object in NDJSON, as the flat fields, but not both', async () => {
    const base = { latitude, longitude, species_code: 'PSME', planting_method: 'manual' }
    const lines = [
      { ...base, id: 'nested', treatments: { vegetation_control: 'release_2yr' } },
      { ...base, id: 'flat', vegetation_control: 'release_2yr' },
      { ...base, id: 'both', vegetation_control: 'none', treatments: { shade: 'shade_cards' } },
      { ...base, id: 'plain' },
    ].map((line) => JSON.stringify(line))
    const { text } = await finished(ndjsonUpload(lines), undefined, 'ndjson')
    const [nested, flat, both, plain] = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(nested.survival_5y).toBe(flat.survival_5y)
    expect(nested.survival_5y).toBeGreaterThan(plain.survival_5y)
    expect(both).toMatchObject({
      error_code: 'invalid_request',
    })
    // NDJSON results keep their columns: the treatments are not echoed.
    expect(Object.keys(nested)).toEqual(Object.keys(plain))
  })
})

describe('JobService with default treatments', () => {
  const DEFAULTS: TreatmentsRequest = { vegetationControl: 'release_2yr', animalProtection: 'mesh_tubes' }

  it('gives every row the defaults it does not override, value by value, and keeps them with the job', async () => {
    const { job, text } = await finished(
      csv(TREATED_HEADER, [
        row('defaults', 'manual', '', ''),
        row('no_tubes', 'manual', '', 'none'),
        row('drone', 'drone_seeded', '', ''),
        row('drone_no_tubes', 'drone_seeded', '', 'none'),
      ]),
      DEFAULTS,
    )
    expect(job.defaults).toEqual({ vegetation_control: 'release_2yr', animal_protection: 'mesh_tubes' })
    const [defaults, noTubes, drone, droneNoTubes] = rowsOf(text)
    const explicit = rowsOf(
      (
        await finished(
          csv(TREATED_HEADER, [
            row('a', 'manual', 'release_2yr', 'mesh_tubes'),
            row('b', 'manual', 'release_2yr', 'none'),
            row('c', 'drone_seeded', 'release_2yr', 'none'),
          ]),
        )
      ).text,
    )
    expect(defaults?.survival_5y).toBe(explicit[0]?.survival_5y)
    expect(noTubes?.survival_5y).toBe(explicit[1]?.survival_5y)
    expect(survival(defaults)).toBeGreaterThan(survival(noTubes))
    // A default that does not apply to drone seeding fails those rows alone; a row can set it aside.
    expect(drone).toMatchObject({ error_code: 'invalid_treatment', survival_5y: '' })
    expect(droneNoTubes?.survival_5y).toBe(explicit[2]?.survival_5y)
  })

  it('applies defaults to GeoJSON points too, a null property taking the default', async () => {
    const point = (id: string, properties: Record<string, unknown>) => ({
      type: 'Feature',
      id,
      geometry: { type: 'Point', coordinates: [longitude, latitude] },
      properties: { species_code: 'PSME', planting_method: 'manual', ...properties },
    })
    const upload: StreamedUpload = {
      format: 'geojson',
      defaults: {},
      records: stream([
        point('default', { vegetation_control: null }),
        point('own', { vegetation_control: 'none', animal_protection: 'none' }),
        point('bad', { shade: 'umbrella' }),
      ]),
    }
    const { jobs, queue, charge } = setup()
    const job = await jobs.create(owner(), upload, charge, undefined, DEFAULTS)
    await runAll(jobs, queue)
    const collection = JSON.parse(await resultText(jobs, job.id, 'geojson'))
    const [withDefault, own, bad] = collection.features.map((f: { properties: object }) => f.properties)
    expect(withDefault.survival_5y).toBeGreaterThan(own.survival_5y)
    expect(bad).toMatchObject({
      error_code: 'invalid_request',
      error_message: 'feature 2: properties.shade must be one of none, shade_cards',
    })
    expect(job.defaults).toEqual({ vegetation_control: 'release_2yr', animal_protection: 'mesh_tubes' })
  })
})

describe('JobService without treatments', () => {
  it('stores and answers an untreated job exactly as before treatments; only none values answer the same bytes', async () => {
    const plain = await finished(csvUpload(5))
    expect(plain.job.defaults).toEqual({})
    for (const text of plain.store.inputs.values()) expect(text).not.toContain('treatments')
    const none = await finished(csvUpload(5), { vegetationControl: 'none', shade: 'none' })
    expect(none.text).toBe(plain.text)
    const empty = await finished(csvUpload(5), {})
    expect(empty.job.defaults).toEqual({})
    expect(empty.text).toBe(plain.text)
  })
})
