import { Command, Option } from 'commander'
import { SPECIES } from '../domain/species.ts'
import type { TreatmentsRequest } from '../domain/treatment-values.ts'
import { TREATMENTS } from '../domain/treatments.ts'
import { loadSurvivalModel } from '../model/index.ts'
import { isInNativeRange } from '../model/native-range.ts'
import { generateSites } from '../seed/generate-sites.ts'
import { FOREST_ZONES, type ForestZone, type Horizon, type Site, type Species } from '../types.ts'

/**
 * Who gains from each treatment and who gains least, by forest zone: the mean change of hand-planted
 * survival at one horizon over the synthetic sites of each zone where the species is native, as
 * Markdown tables (docs/model-card.md → Treatments).
 */

/** Each treatment at the value a forester weighs first. */
const TREATMENTS_SHOWN: readonly { label: string; request: TreatmentsRequest }[] = [
  { label: 'vegetation control, two years (`release_2yr`)', request: { vegetationControl: 'release_2yr' } },
  { label: 'mesh tubes', request: { animalProtection: 'mesh_tubes' } },
  { label: 'container stock', request: { stockType: 'container' } },
  { label: 'shade cards', request: { shade: 'shade_cards' } },
]

const points = (value: number) => `+${(value * 100).toFixed(1)}`

/** The table of one treatment, or a sentence when it changes no site's survival (a central effect of 0). */
function zoneTable(
  sitesByZone: ReadonlyMap<ForestZone, readonly Site[]>,
  gain: (site: Site, species: Species) => number,
): string[] {
  let largest = 0
  const lines = ['| zone | mean gain (points) | gain most | gain least |', '| --- | ---: | --- | --- |']
  for (const [zone, sites] of sitesByZone) {
    let sum = 0
    let count = 0
    const bySpecies = SPECIES.flatMap((species) => {
      const native = sites.filter((site) => isInNativeRange(species, site))
      if (native.length === 0) return []
      let speciesSum = 0
      for (const site of native) {
        const change = gain(site, species)
        speciesSum += change
        largest = Math.max(largest, Math.abs(change))
      }
      sum += speciesSum
      count += native.length
      return [{ code: species.code, gain: speciesSum / native.length }]
    }).sort((a, b) => b.gain - a.gain || a.code.localeCompare(b.code))
    const list = (rows: typeof bySpecies) => rows.map((c) => `${c.code} ${points(c.gain)}`).join(', ') || '—'
    lines.push(
      `| ${zone} | ${count ? points(sum / count) : '—'} | ${list(bySpecies.slice(0, 3))} | ${list(bySpecies.slice(-3).reverse())} |`,
    )
  }
  return largest < 0.0005
    ? ['No change at any site and horizon: its central effect is 0; it widens the intervals only.']
    : lines
}

const program = new Command('treatments-report')
  .description('winners and losers of each establishment treatment by forest zone (Markdown on stdout)')
  .addOption(new Option('--horizon <years>', 'horizon').choices(['1', '3', '5']).default('5'))
  .action((options: { horizon: string }) => {
    const model = loadSurvivalModel(SPECIES)
    const horizon = Number(options.horizon) as Horizon
    const sitesByZone = new Map<ForestZone, Site[]>(FOREST_ZONES.map((zone) => [zone, []]))
    for (const site of generateSites()) sitesByZone.get(site.zone)?.push(site)
    const survival = (site: Site, species: Species, effects?: Parameters<typeof model.predict>[4]) =>
      model.predict(site, species, 'manual', [horizon], effects)[0]?.survivalProbability as number
    const sections = TREATMENTS_SHOWN.map(({ label, request }) => {
      const effects = TREATMENTS.resolve(request, 'manual')?.modelEffects
      const gain = (site: Site, species: Species) =>
        survival(site, species, effects) - survival(site, species)
      return [`**${label}**`, '', ...zoneTable(sitesByZone, gain)].join('\n')
    })
    process.stdout.write(
      `Hand planting, ${horizon}-year survival with the treatment against without, mean over the sites of each zone where the species is native (treatments data ${TREATMENTS.dataVersion}).\n\n${sections.join('\n\n')}\n`,
    )
  })

program.parse(process.argv)
