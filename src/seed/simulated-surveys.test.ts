import { spawnSync } from 'node:child_process'
import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { resolvePlantingMethod, resolveSpecies } from '../domain/catalogue.ts'
import { latitude, longitude } from '../domain/input-rules.ts'
import {
  plantedOn,
  plotId,
  protocol,
  surveyedOn,
  treesAlive,
  treesPlanted,
} from '../domain/surveys/survey-input-rules.ts'
import { checkSurveyPlot, type SurveyPlotInput } from '../domain/surveys/survey-plot.ts'
import { calibrationInTheLarge } from '../domain/surveys/survey-statistics.ts'
import { survivalAtAge } from '../domain/surveys/survival-at-age.ts'
import { isInCoverage, stateAt } from '../geo/coverage.ts'
import { isInNativeRange } from '../model/native-range.ts'
import { PROJECT_ROOT } from '../project-files.ts'
import type { Site } from '../types.ts'
import {
  describeTruth,
  NO_SHIFT,
  parseTruth,
  type SimulatedSurveyPlot,
  type SimulationOptions,
  SURVEY_FILE_COLUMNS,
  type SurveyFileFormat,
  simulatedSurveyPlots,
  simulationWorld,
  surveyFileChunks,
  surveyFileFormatOf,
} from './simulated-surveys.ts'
import { truthKey } from './survey-simulation.ts'

const world = simulationWorld()
const siteByPosition = new Map(world.sites.map((site) => [`${site.latitude},${site.longitude}`, site]))

const options = (overrides: Partial<SimulationOptions> = {}): SimulationOptions => ({
  plots: 2000,
  seed: 1,
  truth: NO_SHIFT,
  ...overrides,
})
const fileText = (o: SimulationOptions, format: SurveyFileFormat) =>
  [...surveyFileChunks(simulatedSurveyPlots(o, world), format)].join('')

describe('simulated survey plots', () => {
  it('2,000 plots as CSV pass every survey rule and stand at synthetic sites inside coverage', () => {
    const rows = parse(fileText(options(), 'csv'), { columns: true }) as Record<string, string>[]
    expect(rows).toHaveLength(2000)
    expect(Object.keys(rows[0] as object)).toEqual([...SURVEY_FILE_COLUMNS])
    // Surveys run to 2026-06-30: a fixed "today" keeps the test true whatever the machine's clock says.
    const today = new Date(Date.UTC(2026, 5, 30))
    const problems: string[] = []
    rows.forEach((row, index) => {
      const plot: SurveyPlotInput = {
        plotId: plotId.parse(row.plot_id),
        latitude: latitude.parse(Number(row.latitude)),
        longitude: longitude.parse(Number(row.longitude)),
        speciesCode: resolveSpecies(row.species_code as string).code,
        plantingMethod: resolvePlantingMethod(row.planting_method as string),
        plantedOn: plantedOn.parse(row.planted_on),
        surveyedOn: surveyedOn.parse(row.surveyed_on),
        planted: treesPlanted.parse(Number(row.planted)),
        alive: treesAlive.parse(Number(row.alive)),
        protocol: protocol.parse(row.protocol),
      }
      const checked = checkSurveyPlot(plot, index, today)
      const site = siteByPosition.get(`${plot.latitude},${plot.longitude}`)
      const species = world.species.find((s) => s.code === plot.speciesCode)
      const why = [
        plot.plotId === `sim-${String(index + 1).padStart(6, '0')}` || 'plot id',
        isInCoverage(plot.latitude, plot.longitude) || 'outside coverage',
        stateAt(plot.latitude, plot.longitude) !== null || 'off Oregon/Washington land',
        site !== undefined || 'not at a synthetic site',
        (site && species && isInNativeRange(species, site)) || 'species not native there',
        /^20(1[5-9]|2[0-3])-/.test(checked.plantedOn) || 'planted_on not 2015–2023',
        checked.surveyedOn <= '2026-06-30' || 'surveyed after 2026-06-30',
        (checked.ageYears >= 0.5 && checked.ageYears <= 8) || `age ${checked.ageYears}`,
        (plot.planted >= 20 && plot.planted <= 200) || 'planted',
        plot.protocol === 'simulated' || 'protocol',
      ].filter((ok) => ok !== true)
      if (why.length > 0) problems.push(`${plot.plotId}: ${why.join(', ')}`)
    })
    expect(problems).toEqual([])
    const count = (key: string, value: string) => rows.filter((row) => row[key] === value).length
    expect(count('planting_method', 'manual')).toBeGreaterThan(900)
    expect(count('planting_method', 'drone_seeded')).toBeGreaterThan(900)
    expect(new Set(rows.map((row) => row.species_code)).size).toBe(world.species.length)
    expect(new Set(rows.map((row) => row.planted_on?.slice(0, 4))).size).toBe(9)
  })

  it('the same seed and options give the same bytes in every format; another seed others', () => {
    const truth = parseTruth('PSME:manual=-0.5,2021=-0.3')
    for (const format of ['csv', 'ndjson', 'json'] as const) {
      const o = options({ plots: 300, truth })
      expect(fileText(o, format)).toBe(fileText({ ...o }, format))
      expect(fileText({ ...o, seed: 2 }, format)).not.toBe(fileText(o, format))
    }
    // The first plots of a longer run are the plots of a shorter one.
    const long = fileText(options({ plots: 300 }), 'csv').split('\n')
    const short = fileText(options({ plots: 100 }), 'csv').split('\n')
    expect(long.slice(0, 101)).toEqual(short.slice(0, 101))
  })

  it('writes NDJSON one plot a line and JSON as a POST /v1/surveys body', () => {
    const o = options({ plots: 20 })
    const csv = parse(fileText(o, 'csv'), { columns: true, cast: true }) as Record<string, unknown>[]
    const ndjson = fileText(o, 'ndjson')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    const json = JSON.parse(fileText(o, 'json')) as { plots: Record<string, unknown>[] }
    expect(Object.keys(json)).toEqual(['plots'])
    expect(json.plots).toEqual(ndjson)
    expect(ndjson).toEqual(csv)
    expect(Object.keys(ndjson[0])).toEqual([...SURVEY_FILE_COLUMNS])
  })

  it('counts trees from the model’s survival at the plot’s age shifted by the stated truth', () => {
    const plots: SimulatedSurveyPlot[] = [
      ...simulatedSurveyPlots(
        options({ plots: 6000, seed: 7, truth: parseTruth('PSME:manual=-0.8,ALRU:drone_seeded=0.6') }),
        world,
      ),
    ]
    for (const plot of plots.slice(0, 200)) {
      const site = world.sites.find((s) => s.id === plot.siteId) as Site
      const species = world.species.find((s) => s.code === plot.speciesCode)
      if (!species) throw new Error(plot.speciesCode)
      const [s1, s3, s5] = world.model
        .predict(site, species, plot.plantingMethod)
        .map((h) => h.survivalProbability)
      expect(plot.predicted).toBe(
        survivalAtAge({ 1: s1 as number, 3: s3 as number, 5: s5 as number }, plot.ageYears),
      )
    }
    const cell = (key: string) => plots.filter((p) => truthKey(p.speciesCode, p.plantingMethod) === key)
    const psme = calibrationInTheLarge(cell('PSME/manual'))
    const alru = calibrationInTheLarge(cell('ALRU/drone_seeded'))
    const rest = calibrationInTheLarge(
      plots.filter(
        (p) => !['PSME/manual', 'ALRU/drone_seeded'].includes(truthKey(p.speciesCode, p.plantingMethod)),
      ),
    )
    // ~290 and ~120 plots: standard errors of about 0.035 on the logit scale (the plot effect, SD 0.2,
    // also pulls the recovered shift a little towards 0).
    expect(psme.interval[1]).toBeLessThan(0)
    expect(Math.abs(psme.estimate - -0.8)).toBeLessThan(0.15)
    expect(alru.interval[0]).toBeGreaterThan(0)
    expect(Math.abs(alru.estimate - 0.6)).toBeLessThan(0.15)
    expect(Math.abs(rest.estimate)).toBeLessThan(0.05)
  })
})

describe('--truth', () => {
  it('reads species × method offsets and planting-year effects, and says them back', () => {
    const truth = parseTruth(' PSME:manual=-0.5, THPL:drone_seeded=0.3,2021=-0.25')
    expect(truth).toEqual({
      offsets: { 'PSME/manual': -0.5, 'THPL/drone_seeded': 0.3 },
      plantingYearEffects: { 2021: -0.25 },
    })
    expect(describeTruth(truth)).toBe(
      'offsets PSME:manual=-0.5,THPL:drone_seeded=+0.3; planting-year effects 2021=-0.25; plot effect SD 0.2; clumping ρ 0.03',
    )
    expect(describeTruth(NO_SHIFT)).toMatch(/^offsets none; planting-year effects none;/)
  })

  it.each([
    ['', /empty/],
    ['PSME:manual', /SPECIES:method=shift/],
    ['PSME:hand=1', /method manual or drone_seeded/],
    ['XXXX:manual=1', /SPECIES one of PSME/],
    ['PSME:manual=abc', /must be a number/],
    ['PSME:manual=', /must be a number/],
    ['PSME:manual=9', /from -5 to 5/],
    ['PSME:manual=1,PSME:manual=2', /given twice/],
    ['2024=-0.3', /planted from 2015 to 2023/],
  ])('refuses %j', (text, message) => {
    expect(() => parseTruth(text)).toThrow(message)
  })
})

it('takes the format from the extension', () => {
  expect(surveyFileFormatOf('/tmp/a.csv')).toBe('csv')
  expect(surveyFileFormatOf('plots.NDJSON')).toBe('ndjson')
  expect(surveyFileFormatOf('body.json')).toBe('json')
  expect(surveyFileFormatOf('plots.txt')).toBeNull()
  expect(surveyFileFormatOf('-')).toBeNull()
})

describe('npm run surveys:simulate', () => {
  const run = (...args: string[]) =>
    spawnSync('npx', ['tsx', 'src/cli/surveys-simulate.ts', ...args], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    })

  it('writes 50 plots as CSV to stdout, the same bytes as the library, and a summary to stderr', () => {
    const result = run('--plots', '50', '--out', '-')
    expect(result.stderr).toMatch(
      /^surveys:simulate: 50 plots written to stdout \(csv\).*seed 1; truth: offsets none/,
    )
    expect(result.status).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe(
      'plot_id,latitude,longitude,species_code,planting_method,planted_on,surveyed_on,planted,alive,protocol',
    )
    expect(lines).toHaveLength(51)
    expect(result.stdout).toBe(fileText(options({ plots: 50 }), 'csv'))
  })

  it.each([
    [['--plots', '0', '--out', '-'], /--plots must be a whole number from 1 to 1000000, got "0"/],
    [['--plots', '50'], /--out FILE is required/],
    [['--plots', '1001', '--out', '/tmp/never.json'], /--format json.*use csv or ndjson/],
    [['--out', '-', '--truth', 'PSME:hand=1'], /--truth "PSME:hand"/],
    [['--out', '-', '--plot', '5'], /'--plot'/],
  ])('refuses %j, naming the argument, with a non-zero exit', (args, message) => {
    const result = run(...args)
    expect(result.status).not.toBe(0)
    expect(result.status).not.toBeNull()
    expect(result.stderr).toMatch(message)
    expect(result.stdout).toBe('')
  })
})
