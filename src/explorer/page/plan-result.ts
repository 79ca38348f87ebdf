import { elementIn, placeholder, tableRow } from './dom.ts'
import { climateLabel, METHOD_LABELS, modelName, percent, trees, years } from './format.ts'
import type { ExplorerStockingPlanQuery } from './generated/operations.ts'
import { TREES_PER_ACRE_MAX } from './plan-bounds.ts'
import { PlanCostView } from './plan-cost-view.ts'
import { formatShare } from './plan-mix-checks.ts'
import { climateOf } from './state.ts'
import { stockingChart } from './stocking-chart.ts'

export type StockingPlanAnswer = NonNullable<ExplorerStockingPlanQuery['stockingPlan']>

/** Room above the plot for the chart's legend (one line of swatches; two are measured and made room for). */
const LEGEND_ALLOWANCE = 30

/**
 * The Plan tab's answer: the verdict at the confidence, the required density, surviving trees per
 * acre at 1, 3 and 5 years with the interval, the standard, where it was planned, the species and notes.
 */
export class PlanResult {
  private readonly cost: PlanCostView

  constructor(private readonly panel: HTMLElement) {
    this.cost = new PlanCostView(panel)
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  /** Draws a plan (again, at the panel's width), or says what to do while there is none. */
  render(plan: StockingPlanAnswer | null, standSource: string | null): void {
    const chart = this.el('plan-chart')
    this.el('plan-result').dataset.state = plan ? 'planned' : 'empty'
    for (const id of ['plan-verdict', 'plan-required', 'plan-rule', 'plan-site', 'plan-model'])
      this.el(id).replaceChildren()
    this.el('plan-notes').replaceChildren()
    this.el('plan-verify').hidden = true
    this.el('plan-species').hidden = true
    this.cost.render(plan?.cost ?? null, plan?.treatments?.effects ?? null)
    if (!plan) {
      delete this.el('plan-verdict').dataset.meets
      chart.replaceChildren(
        placeholder(
          'Choose a point on the map (or a stand), set the density, the species mix and the confidence, then press Plan.',
        ),
      )
      return
    }
    const { rule } = plan
    const confidence = percent(plan.confidence, 0)
    const verdict = this.el('plan-verdict')
    verdict.dataset.meets = String(plan.meetsAtConfidence)
    const strong = document.createElement('strong')
    strong.textContent = plan.meetsAtConfidence
      ? `Meets the standard at ${confidence} confidence`
      : `Does not meet the standard at ${confidence} confidence`
    verdict.append(
      strong,
      `: a ${percent(plan.meetsProbability)} probability of at least ${trees(rule.targetTreesPerAcre)} surviving trees per acre at ${years(rule.horizonYears)}, with ${trees(plan.plantedTreesPerAcre)} planted per acre (${trees(plan.plantedTreesPerHectare)} per hectare).`,
    )
    const required = this.el('plan-required')
    if (plan.requiredTreesPerAcre === null || plan.requiredTreesPerAcre === undefined)
      required.textContent = `Required density: none up to ${trees(TREES_PER_ACRE_MAX)} trees per acre meets ${trees(rule.targetTreesPerAcre)} per acre at ${confidence} confidence here; choose other species or another method.`
    else
      required.textContent = `Required density at ${confidence} confidence: ${trees(plan.requiredTreesPerAcre)} trees per acre${plan.requiredTreesPerHectare ? ` (${trees(plan.requiredTreesPerHectare)} per hectare)` : ''}${plan.overplantingFactor ? `, an overplanting factor of ${plan.overplantingFactor.toFixed(2)} over the target of ${trees(rule.targetTreesPerAcre)}` : ''}.`
    this.drawChart(plan)
    const verify = this.el('plan-verify')
    verify.hidden = !rule.verify
    verify.textContent = rule.verify
      ? `Verify: the minimum of ${trees(rule.minimumTreesPerAcre)} trees per acre${rule.siteClass ? ` for site class ${rule.siteClass}` : ''} came from secondary summaries; check it against ${rule.citation} before relying on it.`
      : ''
    const target = rule.customTarget
      ? `a custom target of ${trees(rule.targetTreesPerAcre)} trees per acre (the rule’s minimum is ${trees(rule.minimumTreesPerAcre)})`
      : `${trees(rule.minimumTreesPerAcre)} trees per acre`
    this.el('plan-rule').textContent =
      `Standard: ${rule.name}${rule.siteClass ? `, site class ${rule.siteClass}` : ''}: ${target} at ${years(rule.horizonYears)} (${rule.citation}). Status: ${rule.status}.`
    this.el('plan-site').textContent = whereText(plan, standSource)
    this.renderSpecies(plan)
    this.el('plan-notes').replaceChildren(
      ...plan.notes.map((note) => {
        const li = document.createElement('li')
        li.textContent = note
        return li
      }),
    )
    // The version that answered, as the answer names it.
    this.el('plan-model').textContent = `Model ${modelName(plan.model)}`
    this.el('plan-model').dataset.version = plan.model.version
  }

  /**
   * The chart fills its box (of fixed height: an answer moves nothing below it). The legend above the
   * plot may take one line or two, so a plot that would overflow the box is drawn again, shorter.
   */
  private drawChart(plan: StockingPlanAnswer): void {
    const chart = this.el('plan-chart')
    const width = Math.max(260, Math.floor(chart.clientWidth))
    // A few pixels to spare: the x-axis label's descenders reach just past the plot's bottom edge.
    const box = Math.floor(chart.clientHeight) - 6
    const draw = (height: number) => {
      const figure = stockingChart(
        {
          horizons: plan.horizons,
          targetTreesPerAcre: plan.rule.targetTreesPerAcre,
          ruleHorizonYears: plan.rule.horizonYears,
          plantedTreesPerAcre: plan.plantedTreesPerAcre,
          confidence: plan.confidence,
        },
        width,
        height,
      )
      chart.replaceChildren(figure)
      return figure
    }
    const first = draw(Math.max(160, box - LEGEND_ALLOWANCE))
    const overflow = first.getBoundingClientRect().height - box
    if (box > 0 && overflow > 0.5) draw(Math.max(160, box - LEGEND_ALLOWANCE - Math.ceil(overflow)))
  }

  private renderSpecies(plan: StockingPlanAnswer): void {
    const atRule =
      plan.horizons.find((h) => h.horizonYears === plan.rule.horizonYears) ??
      plan.horizons[plan.horizons.length - 1]
    if (!atRule) return
    this.el('plan-species').hidden = false
    const capped = atRule.bySpecies.some((s) => !s.countsInFull)
    this.el('plan-species-caption').textContent =
      `By species at ${years(atRule.horizonYears)}${capped ? '; ‡ counts toward the standard only up to the hardwood cap' : ''}`
    this.el('plan-species-body').replaceChildren(
      ...atRule.bySpecies.map((s) =>
        tableRow([
          `${s.species.commonName}${s.countsInFull ? '' : ' ‡'}`,
          formatShare(s.share),
          percent(s.survivalProbability),
          `${trees(s.expectedTreesPerAcre)} of ${trees(s.plantedTreesPerAcre)}`,
        ]),
      ),
    )
  }
}

function whereText(plan: StockingPlanAnswer, source: string | null): string {
  const method = METHOD_LABELS[plan.plantingMethod === 'DRONE_SEEDED' ? 'drone_seeded' : 'manual']
  const how = `${method}, ${climateLabel(climateOf(plan.climatePeriod ?? null, plan.climateScenario ?? null))}`
  if (plan.site) {
    const s = plan.site
    return `Point ${s.latitude.toFixed(5)}, ${s.longitude.toFixed(5)}: matched data site ${s.siteId}, ${s.matchDistanceKm.toFixed(2)} km away (${s.zone.replaceAll('_', ' ')}, site class ${s.siteClass}${s.state ? `, ${s.state}` : ''}). ${how}.`
  }
  if (plan.stand) {
    const s = plan.stand
    const from = source ? (source.startsWith('drawn') ? ` ${source}` : ` from ${source}`) : ''
    const sites = s.nearestSiteUsed
      ? `no data site inside; the nearest, ${s.nearestSiteDistanceKm?.toFixed(2)} km from its centre, stands for it`
      : `${s.sitesInside} data site${s.sitesInside === 1 ? '' : 's'} inside`
    return `Stand${from}: ${s.areaHa.toLocaleString('en-US', { maximumFractionDigits: 2 })} ha, ${sites} (site class ${s.siteClass}${s.state ? `, ${s.state}` : ''}). ${how}.`
  }
  return how
}
