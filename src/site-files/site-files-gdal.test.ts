import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateSites } from '../seed/generate-sites.ts'
import type { Site } from '../types.ts'
import { SiteFileError } from './site-file-error.ts'
import { readSiteFile } from './site-readers.ts'
import { type CheckedSite, SiteValidator } from './site-validation.ts'
import { writeSiteFile } from './site-writers.ts'

/*
 * GDAL (Debian's gdal-bin) as the other side of the files: it reads the GeoPackage written here, and
 * writes GeoPackages and GeoJSON from the CSV and GeoJSON written here that the readers take back.
 * Missing, it is installed when the tests run as root; only when it cannot be are these skipped, saying so.
 */

const OGRINFO = '/usr/bin/ogrinfo'
const OGR2OGR = '/usr/bin/ogr2ogr'

function gdalAvailable(): boolean {
  if (existsSync(OGRINFO) && existsSync(OGR2OGR)) return true
  if (process.getuid?.() !== 0) return false
  const installed = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'gdal-bin'], {
    stdio: 'ignore',
    timeout: 600_000,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  return installed.status === 0 && existsSync(OGRINFO) && existsSync(OGR2OGR)
}

const GDAL = gdalAvailable()
if (!GDAL)
  console.warn(`site files and GDAL: skipped, ${OGRINFO} is missing and gdal-bin could not be installed`)

const SITES: Site[] = generateSites()
  .filter((_, index) => index % 8 === 0)
  .slice(0, 2000)

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'site-files-gdal-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function gdal(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', env: { ...process.env, CPL_LOG: '/dev/null' } })
}

async function checked(path: string): Promise<CheckedSite[]> {
  const rows: CheckedSite[] = []
  for await (const row of new SiteValidator().validate(readSiteFile(path))) rows.push(row)
  return rows
}

function expectSameSites(rows: CheckedSite[]): void {
  expect(rows.filter((row) => row.problems !== null)).toEqual([])
  expect(rows.map((row) => row.site)).toEqual(SITES.map(({ id: _id, ...site }) => site))
  expect(rows.map((row) => row.featureId)).toEqual(SITES.map((site) => String(site.id)))
}

describe.skipIf(!GDAL)('site files and GDAL', () => {
  it('ogrinfo reads the exported GeoPackage: its point layer, feature count, fields and extent', async () => {
    const path = join(dir, 'export.gpkg')
    await writeSiteFile(SITES, path)
    const info = gdal(OGRINFO, ['-so', '-al', path])
    expect(info).toContain("using driver `GPKG' successful")
    expect(info).toContain('Layer name: sites')
    expect(info).toContain('Geometry: Point')
    expect(info).toContain('Feature Count: 2000')
    expect(info).toMatch(/ID\["EPSG",4326\]/)
    const fields = [...info.matchAll(/^(\w+): (\w+) \(/gm)].map(([, name, type]) => `${name}: ${type}`)
    expect(fields).toEqual([
      'site_id: String',
      'elevation_m: Integer',
      'slope_deg: Real',
      'aspect_deg: Real',
      'heat_load_index: Real',
      'soil_depth_cm: Integer',
      'rock_fraction_pct: Real',
      'vegetation_cover_pct: Real',
      'annual_precip_mm: Integer',
      'summer_water_deficit_mm: Integer',
      'growing_season_frost_days: Integer',
      'browse_pressure_index: Real',
      'zone: String',
      'region_id: String',
      'state: String',
    ])
    const west = Math.min(...SITES.map((site) => site.longitude)).toFixed(6)
    const north = Math.max(...SITES.map((site) => site.latitude)).toFixed(6)
    expect(info).toMatch(new RegExp(`Extent: \\(${west}, [\\d.]+\\) - \\([-\\d.]+, ${north}\\)`))
    const first = SITES[0] as Site
    const feature = gdal(OGRINFO, ['-q', '-al', '-fid', '1', path])
    expect(feature).toContain(`POINT (${first.longitude} ${first.latitude})`)
    expect(feature).toContain(`elevation_m (Integer) = ${first.elevationM}`)
    expect(feature).toContain(`zone (String) = ${first.zone}`)
  })

  it('GDAL copies the exported GeoPackage to GeoJSON that reads back as the same sites', async () => {
    const gpkg = join(dir, 'copy.gpkg')
    await writeSiteFile(SITES, gpkg)
    const geojson = join(dir, 'copy.geojson')
    gdal(OGR2OGR, ['-f', 'GeoJSON', geojson, gpkg])
    expectSameSites(await checked(geojson))
  })

  it('reads a GeoPackage that ogr2ogr made from the exported CSV', async () => {
    const csv = join(dir, 'export.csv')
    await writeSiteFile(SITES, csv)
    const gpkg = join(dir, 'from-csv.gpkg')
    gdal(OGR2OGR, [
      '-f',
      'GPKG',
      gpkg,
      csv,
      '-oo',
      'X_POSSIBLE_NAMES=longitude',
      '-oo',
      'Y_POSSIBLE_NAMES=latitude',
      '-oo',
      'AUTODETECT_TYPE=YES',
      '-a_srs',
      'EPSG:4326',
      '-nln',
      'planting_sites',
    ])
    expectSameSites(await checked(gpkg))
  })

  it('reads a GeoPackage that ogr2ogr made from the exported GeoJSON (with a spatial index)', async () => {
    const geojson = join(dir, 'export.geojson')
    await writeSiteFile(SITES, geojson)
    const gpkg = join(dir, 'from-geojson.gpkg')
    gdal(OGR2OGR, ['-f', 'GPKG', gpkg, geojson, '-lco', 'SPATIAL_INDEX=YES'])
    expectSameSites(await checked(gpkg))
  })

  it('refuses a GeoPackage that ogr2ogr reprojected to another coordinate system', async () => {
    const gpkg = join(dir, 'export-for-3857.gpkg')
    await writeSiteFile(SITES.slice(0, 10), gpkg)
    const projected = join(dir, 'mercator.gpkg')
    gdal(OGR2OGR, ['-f', 'GPKG', projected, gpkg, '-t_srs', 'EPSG:3857'])
    const error = await checked(projected).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(SiteFileError)
    expect((error as Error).message).toMatch(/in EPSG:3857 .*: sites must be WGS84 longitude and latitude/)
  })
})
