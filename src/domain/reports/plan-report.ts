import type { MultiPolygon, Polygon } from 'geojson'
import { perHectare } from '../stocking/stocking-math.ts'
import type { StockingPlan } from '../stocking/stocking-types.ts'
import { horizonAxis, valueAxis } from './chart-axes.ts'
import { costSection } from './cost-parts.ts'
import { locatorMap } from './locator-map.ts'
import type { FactTable, ReportBlock, ReportDocument } from './report-document.ts'
import type { MessageKey, Messages } from './report-messages.ts'
import { commonName, noteKey, ruleStatusText } from './report-notes.ts'
import type { ReportNumbers } from './report-numbers.ts'
import {
  cleanName,
  climateName,
  madeAt,
  methodName,
  modelName,
  notesSection,
  reportFrame,
  yearsText,
  zoneName,
} from './report-parts.ts'
import type { ReportRequest } from './report-request.ts'
import { treatmentsSection } from './treatment-parts.ts'

/** The notes every plan carries that its Assumptions section says already (assumptions.plan): not printed twice. */
const STATED_AS_ASSUMPTIONS: readonly (MessageKey | null)[] = ['note.survivalOnly', 'note.assumptions']

/** What a stocking plan's report holds, from the plan as answered (docs/reports.md → Stocking plan). */
export function stockingPlanReport(
  plan: StockingPlan,
  where: { stand: Polygon | MultiPolygon | null; standName: string | null },
  request: ReportRequest,
  context: { text: Messages; numbers: ReportNumbers; synthetic: boolean },
): ReportDocument {
  const { text, numbers } = context
  const place = placeOf(plan, where.standName, text, numbers)
  const blocks: ReportBlock[] = [
    { kind: 'heading', text: text('heading.where') },
    {
      kind: 'summary',
      facts: summaryFacts(plan, place, text, numbers),
      map: locatorMap(
        {
          requested:
            plan.location.kind === 'point' ? [plan.location.longitude, plan.location.latitude] : null,
          stand: where.stand,
          sites:
            plan.location.kind === 'point'
              ? [[plan.location.matchedLongitude, plan.location.matchedLatitude]]
              : plan.location.sites.map((site) => [site.longitude, site.latitude] as const),
        },
        text,
        numbers,
      ),
    },
    { kind: 'heading', text: text('heading.standard') },
    { kind: 'facts', table: standardFacts(plan, text, numbers) },
    { kind: 'chart', chart: survivorsChart(plan, text, numbers) },
    { kind: 'heading', text: text('heading.horizons') },
    { kind: 'table', table: horizonsTable(plan, text, numbers) },
    { kind: 'heading', text: text('heading.species') },
    { kind: 'table', table: speciesTable(plan, text, numbers) },
    ...sitesSection(plan, text, numbers),
    ...(plan.treatments ? treatmentsSection(text, numbers, request.language, plan.treatments) : []),
    // As the JSON answer carries it: when costs were given or treatments asked for.
    ...(plan.costAsked || plan.treatments ? costSection(text, numbers, request.language, plan.cost) : []),
    ...(plan.climate ? climateOfPlan(plan, text) : []),
    ...ruleSection(plan, text, numbers),
    { kind: 'heading', text: text('heading.assumptions') },
    { kind: 'paragraph', text: text('assumptions.plan') },
    ...(plan.climate ? [{ kind: 'paragraph', text: text('assumptions.climate') } as const] : []),
    ...notesSection(
      text,
      numbers,
      plan.notes.filter((note) => !STATED_AS_ASSUMPTIONS.includes(noteKey(note))),
    ),
  ]
  return reportFrame(request, text, {
    title: text('title.plan', { place }),
    subtitle: text('subtitle.plan', {
      rule: plan.rule.name,
      time: madeAt(request.language, plan.generatedAt),
    }),
    createdAt: plan.generatedAt,
    synthetic: context.synthetic,
    dataVersion: plan.dataVersion,
    model: plan.model,
    blocks,
  })
}

function placeOf(
  plan: StockingPlan,
  standName: string | null,
  text: Messages,
  numbers: ReportNumbers,
): string {
  if (standName) return cleanName(standName)
  const { location } = plan
  if (location.kind === 'point') return pair(text, numbers, location.latitude, location.longitude)
  return text('place.stand', {
    latitude: numbers.coordinate(location.centroid.latitude),
    longitude: numbers.coordinate(location.centroid.longitude),
  })
}

function pair(text: Messages, numbers: ReportNumbers, latitude: number, longitude: number): string {
  return text('place.point', {
    latitude: numbers.coordinate(latitude),
    longitude: numbers.coordinate(longitude),
  })
}

function density(text: Messages, perAcre: string, perHectare: string): string {
  return text('value.density', { perAcre, perHectare })
}

function summaryFacts(plan: StockingPlan, place: string, text: Messages, numbers: ReportNumbers): FactTable {
  const { location } = plan
  const whereRows: [string, string][] =
    location.kind === 'point'
      ? [
          [text('fact.requested'), pair(text, numbers, location.latitude, location.longitude)],
          [text('fact.matched'), pair(text, numbers, location.matchedLatitude, location.matchedLongitude)],
          [text('fact.siteId'), numbers.id(location.siteId)],
          [text('fact.distance'), text('value.km', { value: numbers.km(location.matchDistanceKm) })],
          [text('fact.zone'), zoneName(text, location.zone)],
        ]
      : [
          [text('fact.standArea'), text('value.hectares', { value: numbers.hectares(location.areaHa) })],
          [
            text('fact.centroid'),
            pair(text, numbers, location.centroid.latitude, location.centroid.longitude),
          ],
          [
            text('fact.sitesInside'),
            location.nearestSiteUsed
              ? text('fact.nearestUsed', {
                  distance: text('value.km', { value: numbers.km(location.nearestSiteDistanceKm ?? 0) }),
                })
              : numbers.count(location.sitesInside),
          ],
        ]
  const first = plan.horizons[0]
  return {
    rows: [
      [text('fact.place'), place],
      ...whereRows,
      [text('fact.state'), location.state ?? '—'],
      [text('fact.siteClass'), text('value.siteClassOregon', { siteClass: location.siteClass })],
      [
        text('fact.mix'),
        (first?.bySpecies ?? [])
          .map((s) => text('value.speciesMix', { code: s.species.code, share: numbers.probability(s.share) }))
          .join(', '),
      ],
      [text('fact.method'), methodName(text, plan.plantingMethod)],
      [
        text('fact.planted'),
        density(
          text,
          numbers.planted(plan.planted.treesPerAcre),
          numbers.trees(plan.planted.treesPerHectare),
        ),
      ],
      [text('fact.confidence'), numbers.probability(plan.confidence)],
      [text('fact.climate'), climateName(text, plan.climate)],
      [text('fact.model'), modelName(plan.model)],
      [text('fact.dataVersion'), plan.dataVersion ?? '—'],
    ],
  }
}

function standardFacts(plan: StockingPlan, text: Messages, numbers: ReportNumbers): FactTable {
  const { rule, required, meetsStandard } = plan
  const perAcre = (value: number) => text('value.treesPerAcre', { value: numbers.trees(value) })
  return {
    rows: [
      [text('fact.rule'), rule.name],
      [text('fact.ruleSet'), rule.id],
      [
        text('fact.minimum'),
        rule.siteClass
          ? `${perAcre(rule.minimumTreesPerAcre)} · ${text('value.siteClassOregon', { siteClass: rule.siteClass })}`
          : perAcre(rule.minimumTreesPerAcre),
      ],
      [
        text('fact.target'),
        rule.customTarget
          ? text('fact.targetCustom', {
              target: perAcre(rule.targetTreesPerAcre),
              minimum: numbers.trees(rule.minimumTreesPerAcre),
            })
          : perAcre(rule.targetTreesPerAcre),
      ],
      [text('fact.judgedAt'), yearsText(text, rule.horizonYears)],
      [
        text('fact.hardwoodCap'),
        rule.hardwoodShareCap === null ? text('fact.noCap') : numbers.probability(rule.hardwoodShareCap),
      ],
      [text('fact.meetsProbability'), numbers.probability(meetsStandard.probability)],
      [text('fact.meetsAtConfidence'), text(meetsStandard.atConfidence ? 'value.yes' : 'value.no')],
      [
        text('fact.required'),
        required.treesPerAcre === null || required.treesPerHectare === null
          ? text('fact.requiredNone')
          : density(text, numbers.trees(required.treesPerAcre), numbers.trees(required.treesPerHectare)),
      ],
      [
        text('fact.overplanting'),
        required.overplantingFactor === null
          ? text('value.none')
          : numbers.ratio(required.overplantingFactor),
      ],
      [
        text('fact.carbon'),
        plan.ninetyPercentHalfWidthShare === null
          ? text('value.none')
          : numbers.probability(plan.ninetyPercentHalfWidthShare),
      ],
      [text('fact.verify'), text(rule.verify ? 'value.yes' : 'value.no')],
    ],
  }
}

function survivorsChart(plan: StockingPlan, text: Messages, numbers: ReportNumbers) {
  const confidence = numbers.probability(plan.confidence)
  const target = plan.rule.targetTreesPerAcre
  const highest = Math.max(target, ...plan.horizons.map((h) => h.upper))
  return {
    kind: 'band' as const,
    title: text('chart.plan.title'),
    alt: text('chart.plan.alt', { confidence, target: numbers.trees(target) }),
    legend: [
      { label: text('chart.plan.band', { confidence }), mark: 'band' as const },
      { label: text('chart.plan.expected'), mark: 'line' as const },
      { label: text('chart.plan.target', { target: numbers.trees(target) }), mark: 'dashed' as const },
    ],
    x: horizonAxis(
      text('chart.plan.x'),
      plan.horizons.map((h) => h.horizonYears),
    ),
    y: valueAxis(text('chart.plan.y'), [highest * 1.05], (value) => numbers.trees(value)),
    points: plan.horizons.map((h) => ({
      x: h.horizonYears,
      lower: h.lower,
      expected: h.expectedTreesPerAcre,
      upper: h.upper,
    })),
    target: { y: target, label: text('chart.plan.target', { target: numbers.trees(target) }) },
  }
}

function horizonsTable(plan: StockingPlan, text: Messages, numbers: ReportNumbers) {
  const column = (key: Parameters<Messages>[0], align: 'left' | 'right' = 'right') => ({
    label: text(key),
    align,
  })
  return {
    caption: text('caption.horizons', { confidence: numbers.probability(plan.confidence) }),
    columns: [
      column('column.horizon'),
      column('column.survival'),
      column('column.expectedAcre'),
      column('column.lowerAcre'),
      column('column.upperAcre'),
      column('column.expectedHectare'),
      column('column.lowerHectare'),
      column('column.upperHectare'),
    ],
    rows: plan.horizons.map((h) => [
      String(h.horizonYears),
      numbers.probability(h.survivalProbability),
      numbers.trees(h.expectedTreesPerAcre),
      numbers.trees(h.lower),
      numbers.trees(h.upper),
      numbers.trees(perHectare(h.expectedTreesPerAcre)),
      numbers.trees(perHectare(h.lower)),
      numbers.trees(perHectare(h.upper)),
    ]),
  }
}

/** One row per species of the mix, its survival and expected survivors at each horizon side by side. */
function speciesTable(plan: StockingPlan, text: Messages, numbers: ReportNumbers) {
  const first = plan.horizons[0]
  const right = 'right' as const
  return {
    caption: text('caption.species'),
    columns: [
      { label: text('column.species'), align: 'left' as const },
      { label: text('column.share'), align: right },
      { label: text('column.plantedAcre'), align: right },
      ...plan.horizons.map((h) => ({
        label: text('column.survivalAt', { years: h.horizonYears }),
        align: right,
      })),
      ...plan.horizons.map((h) => ({
        label: text('column.expectedAt', { years: h.horizonYears }),
        align: right,
      })),
      { label: text('column.countsInFull'), align: 'left' as const },
    ],
    rows: (first?.bySpecies ?? []).map((species, k) => [
      `${species.species.code} · ${commonName(text, species.species)}`,
      numbers.probability(species.share),
      numbers.planted(species.plantedTreesPerAcre),
      ...plan.horizons.map((h) => numbers.probability(h.bySpecies[k]?.survivalProbability ?? Number.NaN)),
      ...plan.horizons.map((h) => numbers.trees(h.bySpecies[k]?.expectedTreesPerAcre ?? Number.NaN)),
      text(species.countsInFull ? 'value.yes' : 'value.no'),
    ]),
  }
}

function sitesSection(plan: StockingPlan, text: Messages, numbers: ReportNumbers): ReportBlock[] {
  const { location } = plan
  if (location.kind !== 'stand') return []
  return [
    { kind: 'heading', text: text('heading.sites') },
    {
      kind: 'table',
      table: {
        caption: text('caption.sites', {
          listed: numbers.count(location.sites.length),
          inside: numbers.count(location.nearestSiteUsed ? location.sites.length : location.sitesInside),
        }),
        columns: [
          { label: text('column.siteId'), align: 'right' },
          { label: text('column.latitude'), align: 'right' },
          { label: text('column.longitude'), align: 'right' },
          { label: text('column.zone'), align: 'left' },
          { label: text('column.siteClass'), align: 'left' },
        ],
        rows: location.sites.map((site) => [
          numbers.id(site.siteId),
          numbers.coordinate(site.latitude),
          numbers.coordinate(site.longitude),
          zoneName(text, site.zone),
          site.siteClass,
        ]),
        sideBySide: 2,
      },
    },
  ]
}

function climateOfPlan(plan: StockingPlan, text: Messages): ReportBlock[] {
  const climate = plan.climate
  if (!climate) return []
  return [
    { kind: 'heading', text: text('heading.climate') },
    {
      kind: 'facts',
      table: {
        rows: [
          [text('fact.climate'), climateName(text, climate)],
          [text('fact.climateData'), climate.dataVersion],
        ],
      },
    },
  ]
}

function ruleSection(plan: StockingPlan, text: Messages, numbers: ReportNumbers): ReportBlock[] {
  const { rule } = plan
  return [
    { kind: 'heading', text: text('heading.rule') },
    { kind: 'paragraph', text: `${rule.name}. ${text('rule.citation', { citation: rule.citation })}` },
    { kind: 'paragraph', text: text('rule.status', { status: ruleStatusText(rule.status, text, numbers) }) },
    {
      kind: 'paragraph',
      text: `${text('fact.verify')}: ${text(rule.verify ? 'value.verifyYes' : 'value.verifyNo', { citation: rule.citation })}`,
    },
    { kind: 'paragraph', text: text('rule.sources') },
    { kind: 'list', items: rule.sources, small: true },
  ]
}
