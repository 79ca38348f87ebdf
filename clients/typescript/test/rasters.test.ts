import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SeededServer,
  startSeededServer,
  stopSeededServer,
} from '../../../test/support/seeded-server.ts'
import { createSurvivalClient, SurvivalApiError } from '../src/client.ts'
import { answerError, startProxy } from './support.ts'

/*
 * The typed client's survivalRaster against a live server, its bytes read by GDAL (Debian's gdal-bin):
 * a GeoTIFF in EPSG:4326 whose pixel is what predict answers at its centre; the API's errors thrown.
 */

const run = promisify(execFile)

let running: SeededServer
let dir: string

beforeAll(async () => {
  running = await startSeededServer()
  dir = await mkdtemp(join(tmpdir(), 'client-rasters-'))
})

afterAll(async () => {
  await stopSeededServer(running)
  if (dir) await rm(dir, { recursive: true, force: true })
})

const client = () => createSurvivalClient({ baseUrl: running.server.url, apiKey: running.key })

async function gdal(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(`/usr/bin/${command}`, args, { maxBuffer: 16 * 1024 * 1024 })
  return stdout
}

describe('survivalRaster', () => {
  it('answers the GeoTIFF GDAL reads: a pixel is predict at its centre, treated as asked', async () => {
    const query = {
      species: 'PSME',
      method: 'manual' as const,
      horizon: 5 as const,
      animal_protection: 'mesh_tubes' as const,
      resolution: 0.05,
    }
    const bytes = await client().survivalRaster(query)
    const file = join(dir, 'psme.tif')
    await writeFile(file, bytes)
    const info = JSON.parse(await gdal('gdalinfo', ['-json', file]))
    expect(info.driverShortName).toBe('GTiff')
    expect(info.coordinateSystem.wkt).toMatch(/4326/)
    expect(info.metadata[''].treatments).toMatch(/mesh_tubes/)
    const [west, size, , north, , negative] = info.geoTransform as [
      number,
      number,
      number,
      number,
      number,
      number,
    ]
    const column = Math.floor((-123.6 - west) / size)
    const row = Math.floor((north - 44.6) / -negative)
    const centre = { longitude: west + (column + 0.5) * size, latitude: north + (row + 0.5) * negative }
    const value = Number(
      await gdal('gdallocationinfo', [
        '-valonly',
        '-wgs84',
        file,
        String(centre.longitude),
        String(centre.latitude),
      ]),
    )
    const prediction = await client().predict({
      ...centre,
      species_code: 'PSME',
      planting_method: 'manual',
      treatments: { animal_protection: 'mesh_tubes' },
    })
    const atFive = prediction.predictions.find((p) => p.horizon_years === 5)
    expect(Math.fround(value)).toBe(Math.fround(atFive?.survival_probability as number))
  })

  it('throws the API’s error for a refused query, and refuses an answer that is no GeoTIFF', async () => {
    const refused = await client()
      .survivalRaster({ species: 'XXXX', method: 'manual', horizon: 5 })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(SurvivalApiError)
    expect((refused as SurvivalApiError).code).toBe('invalid_species')
    // A proxy that answers JSON with 200 (a captive portal, a misrouted path): no bytes pass as a raster.
    const proxy = await startProxy(running.server.url, {
      answer: (req, res) => (req.url?.startsWith('/v1/rasters/') ? answerError(res, 200, 'ok') : false),
    })
    try {
      const wrong = await createSurvivalClient({ baseUrl: proxy.url, apiKey: running.key })
        .survivalRaster({ species: 'PSME', method: 'manual', horizon: 5 })
        .catch((error: unknown) => error)
      expect((wrong as SurvivalApiError).code).toBe('not_a_raster')
    } finally {
      await proxy.close()
    }
  })
})
