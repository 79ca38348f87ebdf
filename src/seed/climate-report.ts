import { Command, Option } from 'commander'
import { CLIMATE_FUTURES, EMISSION_SCENARIOS, FUTURE_PERIODS } from '../domain/climate.ts'
import { SPECIES } from '../domain/species.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { isInNativeRange } from '../model/native-range.ts'
import { FOREST_ZONES, type ForestZone, type Horizon, type Site } from '../types.ts'
import { generateSites } from './generate-sites.ts'

/**
 * Which species gain and which lose under a future climate, by forest zone: the mean change of
 * hand-planted survival at one horizon over the synthetic sites of each zone where the species is
 * native, as a Markdown table (docs/model-card.md → Climate).
 */
const program = new Command('climate-report')
  .description('winners and losers of a future climate by forest zone (Markdown on stdout)')
  .addOption(new Option('--period <period>', 'future period').choices(FUTURE_PERIODS).default('2071-2100'))
  .addOption(
    new Option('--scenario <scenario>', 'emission scenario').choices(EMISSION_SCENARIOS).default('ssp585'),
  )
  .addOption(new Option('--horizon <years>', 'horizon').choices(['1', '3', '5']).default('5'))
  .action(
    (options: {
      period: (typeof FUTURE_PERIODS)[number]
      scenario: (typeof EMISSION_SCENARIOS)[number]
      horizon: string
    }) => {
      const model = loadSurvivalModel(SPECIES)
      const future = CLIMATE_FUTURES.resolve({ period: options.period, scenario: options.scenario })
      if (!future) throw new Error('a future climate is required')
      const horizon = Number(options.horizon) as Horizon
      const sitesByZone = new Map<ForestZone, Site[]>(FOREST_ZONES.map((zone) => [zone, []]))
      for (const site of generateSites()) sitesByZone.get(site.zone)?.push(site)
      const survival = (site: Site, species: (typeof SPECIES)[number]) =>
        model.predict(site, species, 'manual', [horizon])[0]?.survivalProbability as number
      const percent = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}`
      const lines = [
        `| zone | sites | gain most (mean Δ, points) | lose most (mean Δ, points) |`,
        '| --- | ---: | --- | --- |',
      ]
      for (const [zone, sites] of sitesByZone) {
        const changes = SPECIES.flatMap((species) => {
          const native = sites.filter((site) => isInNativeRange(species, site))
          if (native.length === 0) return []
          let sum = 0
          for (const site of native)
            sum += survival(CLIMATE_FUTURES.project(site, future).site, species) - survival(site, species)
          return [{ code: species.code, change: sum / native.length }]
        }).sort((a, b) => b.change - a.change)
        const gains = changes.filter((c) => c.change > 0).slice(0, 3)
        const losses = changes
          .filter((c) => c.change < 0)
          .slice(-3)
          .reverse()
        const list = (rows: typeof changes) =>
          rows.length ? rows.map((c) => `${c.code} ${percent(c.change)}`).join(', ') : '—'
        lines.push(`| ${zone} | ${sites.length} | ${list(gains)} | ${list(losses)} |`)
      }
      process.stdout.write(
        `Manual planting, ${horizon}-year survival, ${future.period} ${future.scenario} against 1991–2020, mean over the sites of each zone where the species is native (climate data ${CLIMATE_FUTURES.dataVersion}).\n\n${lines.join('\n')}\n`,
      )
    },
  )

program.parse(process.argv)
