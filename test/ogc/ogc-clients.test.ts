import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestDatabase } from '../support/database.ts'
import { startSeededServer, stopSeededServer } from '../support/seeded-server.ts'
import type { TestServer } from '../support/server.ts'

/*
 * /ogc as the GIS clients our users run read it: GDAL's OAPIF driver (ogrinfo, ogr2ogr), a headless
 * QGIS, geopandas and R's sf, each with the key sent as HTTP Basic credentials. Debian's Python runs
 * the Python clients (the python3 first on PATH may see none of its modules).
 */

const run = promisify(execFile)
const OGRINFO = '/usr/bin/ogrinfo'
const OGR2OGR = '/usr/bin/ogr2ogr'
const PYTHON = '/usr/bin/python3'
const RSCRIPT = '/usr/bin/Rscript'
/** A county-sized box in the Willamette Valley foothills. */
const BOX = [-123.2, 44.1, -122.4, 44.9] as const

let db: TestDatabase
let server: TestServer
let key: string
let workdir: string

beforeAll(async () => {
  ;({ db, server, key } = await startSeededServer())
  workdir = await mkdtemp(join(tmpdir(), 'ogc-clients-'))
})

afterAll(async () => {
  await stopSeededServer({ db, server })
  await rm(workdir, { recursive: true, force: true })
})

const source = () => `OAPIF:${server.url}/ogc`
const credentials = () => ['-oo', `USERPWD=gis:${key}`]
/** GDAL's HTTP settings for a client that opens an items URL directly (the GeoJSON driver). */
const gdalEnv = () => ({ ...process.env, GDAL_HTTP_USERPWD: `gis:${key}`, GDAL_HTTP_AUTH: 'BASIC' })

async function ogc(path: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } })
  expect(response.status).toBe(200)
  // biome-ignore lint/suspicious/noExplicitAny: a GeoJSON page
  return (await response.json()) as any
}

async function ogrinfo(...args: string[]): Promise<string> {
  const { stdout } = await run(OGRINFO, ['-ro', ...args], { maxBuffer: 64 * 1024 * 1024 })
  return stdout
}

/** The features `ogrinfo -al -q` lists: each field as printed, and the geometry's WKT. */
function readFeatures(listing: string): Record<string, string>[] {
  return listing
    .split(/^OGRFeature\([^)]*\):\d+$/m)
    .slice(1)
    .map((block) => {
      const feature: Record<string, string> = {}
      for (const line of block.split('\n')) {
        const field = /^ {2}(\w+) \(\w+\) = (.*)$/.exec(line)
        if (field) feature[field[1] as string] = field[2] as string
        else if (/^ {2}POINT /.test(line)) feature.geometry = line.trim()
      }
      return feature
    })
}

const featureCount = (summary: string) => Number(/Feature Count: (\d+)/.exec(summary)?.[1])

describe('GDAL (ogrinfo, ogr2ogr) through the OAPIF driver', () => {
  it('ogrinfo -so gives each collection’s numberMatched as its feature count', async () => {
    for (const collection of ['sites', 'survival', 'survival-hexagons']) {
      const summary = await ogrinfo('-so', source(), ...credentials(), collection)
      const { numberMatched } = await ogc(`/ogc/collections/${collection}/items?limit=1`)
      expect(featureCount(summary), summary).toBe(numberMatched)
      expect(summary).toMatch(collection === 'survival-hexagons' ? /Geometry: Polygon/ : /Geometry: Point/)
    }
  })

  it('-spat gives the server’s count for that box', async () => {
    const summary = await ogrinfo('-so', source(), ...credentials(), 'sites', '-spat', ...BOX.map(String))
    const { numberMatched } = await ogc(`/ogc/collections/sites/items?limit=1&bbox=${BOX.join(',')}`)
    expect(numberMatched).toBeGreaterThan(20)
    expect(featureCount(summary)).toBe(numberMatched)
  })

  it('-where on the declared parameters reaches the server as query parameters', async () => {
    const { stderr, stdout } = await run(
      OGRINFO,
      [
        '-ro',
        '-so',
        source(),
        ...credentials(),
        'survival',
        '-where',
        "species='PSME' AND method='manual'",
        '--debug',
        'on',
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    )
    expect(stderr).toMatch(/Fetch\([^)]*\/ogc\/collections\/survival\/items\?[^)]*species=PSME&method=manual/)
    const { numberMatched } = await ogc('/ogc/collections/survival/items?limit=1&species=PSME&method=manual')
    expect(featureCount(stdout)).toBe(numberMatched)
  })

  it('ogr2ogr -f GPKG writes a file that ogrinfo reads back with the same count and values', async () => {
    const gpkg = join(workdir, 'survival.gpkg')
    const where = "species='TSHE' AND period='2071-2100' AND scenario='ssp585'"
    await run(OGR2OGR, [
      '-f',
      'GPKG',
      gpkg,
      source(),
      ...credentials(),
      'survival',
      '-where',
      where,
      '-spat',
      ...BOX.map(String),
    ])
    const pages: {
      features: { id: string; properties: Record<string, unknown>; geometry: { coordinates: number[] } }[]
    }[] = []
    let next: string | undefined =
      `/ogc/collections/survival/items?limit=1000&species=TSHE&period=2071-2100&scenario=ssp585&bbox=${BOX.join(',')}`
    while (next) {
      const page = await ogc(next)
      pages.push(page)
      next = page.links.find((l: { rel: string }) => l.rel === 'next')?.href.slice(server.url.length)
    }
    const expected = pages.flatMap((page) => page.features)
    const written = readFeatures(await ogrinfo('-al', '-q', gpkg))
    expect(written).toHaveLength(expected.length)
    const byId = new Map(written.map((f) => [f.id, f]))
    for (const feature of expected) {
      const read = byId.get(feature.id)
      expect(read, feature.id).toBeDefined()
      for (const name of ['site_id', 'species', 'method', 'period', 'scenario', 'model_version'])
        expect(read?.[name], `${feature.id} ${name}`).toBe(String(feature.properties[name]))
      // ogrinfo prints a real to 15 significant digits.
      for (const name of ['survival_1y', 'survival_3y', 'survival_5y'])
        expect(Number(read?.[name])).toBeCloseTo(feature.properties[name] as number, 13)
      expect(read?.geometry).toBe(`POINT (${feature.geometry.coordinates.join(' ')})`)
    }
  })
})

describe('Python and R clients', () => {
  async function python(script: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
    const file = join(workdir, `script-${Math.random().toString(36).slice(2)}.py`)
    await writeFile(file, script)
    const { stdout } = await run(PYTHON, [file], {
      env: { ...env, QT_QPA_PLATFORM: 'offscreen' },
      timeout: 120_000,
    })
    return stdout
  }

  it('geopandas reads an items URL', async () => {
    const url = `${server.url}/ogc/collections/survival/items?limit=500&species=PSME&bbox=${BOX.join(',')}`
    const out = await python(
      `import geopandas, json, urllib.request
# As a notebook would: urllib answers the 401's Basic challenge with the key as the password.
passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
passwords.add_password(None, ${JSON.stringify(server.url)}, "analyst", ${JSON.stringify(key)})
urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPBasicAuthHandler(passwords)))
frame = geopandas.read_file(${JSON.stringify(url)})
print(json.dumps({"rows": len(frame), "crs": frame.crs.to_epsg(), "first": float(frame.iloc[0]["survival_5y"]), "id": int(frame.iloc[0]["site_id"])}))
`,
    )
    const read = JSON.parse(out.trim().split('\n').at(-1) as string)
    const page = await ogc(`/ogc/collections/survival/items?limit=500&species=PSME&bbox=${BOX.join(',')}`)
    expect(read.rows).toBe(page.numberReturned)
    expect(read.crs).toBe(4326)
    expect(read.first).toBe(page.features[0].properties.survival_5y)
    expect(read.id).toBe(page.features[0].properties.site_id)
  })

  it('a headless QGIS opens each collection as a valid layer with Basic credentials, and renders it', async () => {
    const png = join(workdir, 'survival.png')
    const out = await python(
      `import json, os
from qgis.core import (QgsApplication, QgsVectorLayer, QgsMapSettings, QgsMapRendererParallelJob, QgsRectangle,
                       QgsRuleBasedRenderer, QgsMarkerSymbol)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor
app = QgsApplication([], False)
app.initQgis()
result = {}
def layer(name, extra=""):
    return QgsVectorLayer("url='${server.url}/ogc' typename='%s' username='gis' password='${key}' %s" % (name, extra), name, "OAPIF")
for name in ["sites", "survival", "survival-hexagons"]:
    opened = layer(name)
    result[name] = {"valid": opened.isValid(), "count": opened.featureCount(), "fields": [f.name() for f in opened.fields()]}
# Douglas-fir planted by hand, survival at 5 years in five classes, over the box the map shows (fetched by bbox).
survival = layer("survival", "restrictToRequestBBOX='1'")
root = QgsRuleBasedRenderer.Rule(None)
for i, colour in enumerate(["#d7191c", "#fdae61", "#ffffbf", "#a6d96a", "#1a9641"]):
    symbol = QgsMarkerSymbol.createSimple({"name": "circle", "color": colour, "size": "3", "outline_color": "#333333"})
    upper = (i + 1) / 5 + (0.001 if i == 4 else 0)
    rule = "species = 'PSME' AND method = 'manual' AND survival_5y >= %s AND survival_5y < %s" % (i / 5, upper)
    root.appendChild(QgsRuleBasedRenderer.Rule(symbol, 0, 0, rule, "%d-%d %%" % (i * 20, (i + 1) * 20)))
survival.setRenderer(QgsRuleBasedRenderer(root))
settings = QgsMapSettings()
settings.setLayers([survival])
settings.setExtent(QgsRectangle(${BOX.join(', ')}))
settings.setOutputSize(QSize(800, 800))
settings.setBackgroundColor(QColor("white"))
job = QgsMapRendererParallelJob(settings)
job.start()
job.waitForFinished()
image = job.renderedImage()
image.save(${JSON.stringify(png)}, "png")
white = QColor("white").rgb()
result["drawn"] = sum(1 for x in range(0, 800, 4) for y in range(0, 800, 4) if image.pixel(x, y) != white)
print(json.dumps(result), flush=True)
os._exit(0)  # QGIS 3.22 may crash in its own teardown, after the work is done
`,
    )
    const result = JSON.parse(out.trim().split('\n').at(-1) as string)
    for (const collection of ['sites', 'survival', 'survival-hexagons']) {
      expect(result[collection].valid, collection).toBe(true)
      const { numberMatched } = await ogc(`/ogc/collections/${collection}/items?limit=1`)
      expect(result[collection].count).toBe(numberMatched)
    }
    expect(result.survival.fields).toContain('survival_5y')
    expect(result.drawn).toBeGreaterThan(500)
    if (process.env.OGC_QGIS_PNG) await copyFile(png, process.env.OGC_QGIS_PNG)
  })

  it('a headless QGIS opens a treated layer from the landing page’s URL with filters, and refuses a bad one', async () => {
    const query = 'species=PSME&method=manual&vegetation_control=release_2yr&animal_protection=mesh_tubes'
    const out = await python(
      `import json, os
from qgis.core import QgsApplication, QgsVectorLayer
app = QgsApplication([], False)
app.initQgis()
def layer(query):
    return QgsVectorLayer("url='${server.url}/ogc?%s' typename='survival' username='gis' password='${key}'" % query, "survival", "OAPIF")
treated = layer(${JSON.stringify(query)})
values = {str(f["site_id"]): f["survival_5y"] for f in treated.getFeatures()} if treated.isValid() else {}
bad = layer("species=PSME&method=manual&vegetation_control=weeding")
print(json.dumps({"valid": treated.isValid(), "count": treated.featureCount(), "values": values,
                  "fields": [f.name() for f in treated.fields()], "bad_valid": bad.isValid()}), flush=True)
os._exit(0)  # QGIS 3.22 may crash in its own teardown, after the work is done
`,
    )
    const result = JSON.parse(out.trim().split('\n').at(-1) as string)
    expect(result.valid).toBe(true)
    expect(result.fields).toContain('treatments_data_version')
    const expected = new Map<string, number>()
    const untreated = new Map<string, number>()
    for (const [into, filters] of [
      [expected, query],
      [untreated, 'species=PSME&method=manual'],
    ] as const) {
      let next: string | undefined = `/ogc/collections/survival/items?limit=10000&${filters}`
      while (next) {
        const page = await ogc(next)
        for (const f of page.features) into.set(String(f.properties.site_id), f.properties.survival_5y)
        next = page.links.find((l: { rel: string }) => l.rel === 'next')?.href.slice(server.url.length)
      }
    }
    expect(result.count).toBe(expected.size)
    expect(Object.keys(result.values)).toHaveLength(expected.size)
    let above = 0
    for (const [site, value] of Object.entries(result.values)) {
      expect(value, site).toBe(expected.get(site))
      if ((value as number) > (untreated.get(site) as number)) above++
    }
    // Tubes and vegetation control raise survival wherever browse or competing vegetation is a risk.
    expect(above).toBeGreaterThan(expected.size / 2)
    expect(result.bad_valid).toBe(false)
  })

  it('the R recipe (clients/r/survival.R) reads a species and method and writes them to a GeoPackage', async () => {
    const gpkg = join(workdir, 'from-r.gpkg')
    const { stdout } = await run(RSCRIPT, ['clients/r/survival.R', 'PSME', 'manual', gpkg], {
      env: { ...process.env, SURVIVAL_API_URL: server.url, SURVIVAL_API_KEY: key },
      timeout: 180_000,
    })
    const printed = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    )
    const pages: { features: { properties: { survival_5y: number } }[] }[] = []
    let next: string | undefined = '/ogc/collections/survival/items?limit=10000&species=PSME&method=manual'
    while (next) {
      const page = await ogc(next)
      pages.push(page)
      next = page.links.find((l: { rel: string }) => l.rel === 'next')?.href.slice(server.url.length)
    }
    const values = pages.flatMap((page) => page.features.map((f) => f.properties.survival_5y))
    expect(Number(printed.sites)).toBe(values.length)
    expect(Number(printed.mean_survival_5y)).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 5)
    expect(printed.epsg).toBe('4326')
    expect(featureCount(await ogrinfo('-so', '-al', gpkg))).toBe(values.length)
  })

  it('the R recipe takes treatments as name=value, through the collection’s URL, and refuses a bad one', async () => {
    const env = { ...process.env, SURVIVAL_API_URL: server.url, SURVIVAL_API_KEY: key }
    const { stdout } = await run(
      RSCRIPT,
      [
        'clients/r/survival.R',
        'PSME',
        'manual',
        'vegetation_control=release_2yr',
        'animal_protection=mesh_tubes',
      ],
      { env, timeout: 180_000 },
    )
    const printed = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    )
    const query = 'species=PSME&method=manual&vegetation_control=release_2yr&animal_protection=mesh_tubes'
    const values: number[] = []
    let next: string | undefined = `/ogc/collections/survival/items?limit=10000&${query}`
    let dataVersion: string | undefined
    while (next) {
      const page = await ogc(next)
      for (const f of page.features) values.push(f.properties.survival_5y)
      dataVersion ??= page.features[0]?.properties.treatments_data_version
      next = page.links.find((l: { rel: string }) => l.rel === 'next')?.href.slice(server.url.length)
    }
    expect(Number(printed.sites)).toBe(values.length)
    expect(Number(printed.mean_survival_5y)).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 5)
    expect(printed.treatments_data_version).toBe(dataVersion)
    // Treated survival is above the untreated mean the recipe printed without treatments.
    const untreated = await run(RSCRIPT, ['clients/r/survival.R', 'PSME', 'manual'], {
      env,
      timeout: 180_000,
    })
    expect(Number(printed.mean_survival_5y)).toBeGreaterThan(
      Number(/mean_survival_5y (\S+)/.exec(untreated.stdout)?.[1]),
    )
    const refused = await run(
      RSCRIPT,
      ['clients/r/survival.R', 'PSME', 'manual', 'vegetation_control=weeding'],
      {
        env,
        timeout: 180_000,
      },
    ).catch((error: { stderr: string }) => error)
    expect('stderr' in refused ? refused.stderr : '').toMatch(/vegetation_control/)
  })

  it('R’s sf reads the survival collection through OAPIF', async () => {
    expect(existsSync(RSCRIPT), 'Rscript (Debian r-base-core) is installed by .ci/run').toBe(true)
    const { stdout } = await run(
      RSCRIPT,
      [
        '-e',
        `suppressMessages(library(sf)); x <- st_read("OAPIF:${server.url}/ogc", layer = "survival", query = "SELECT * FROM survival WHERE species = 'PSME' AND method = 'manual'", quiet = TRUE); cat(nrow(x), st_crs(x)$epsg, "\\n")`,
      ],
      { env: gdalEnv(), timeout: 120_000 },
    )
    const [rows, epsg] = stdout.trim().split(/\s+/).map(Number)
    const { numberMatched } = await ogc('/ogc/collections/survival/items?limit=1&species=PSME&method=manual')
    expect(rows).toBe(numberMatched)
    expect(epsg).toBe(4326)
  })
})
