import { elementIn, placeholder, stacked } from './dom.ts'
import { METHOD_LABELS, percent, trees, years } from './format.ts'
import type { ExplorerPlantingOptionsQuery } from './generated/operations.ts'
import { type OptionPoint, optionsChart } from './options-chart.ts'
import { OPTIONS_CHOICES_HTML } from './options-choices.ts'
import { perTreeText, statusWord, usd } from './plan-cost-view.ts'
import { treatmentsText } from './plan-treatments.ts'

/**
 * What the Options view shows of a `plantingOptions` answer: a summary, a chart of cost per acre
 * against the probability of meeting the standard, the options cheapest first (the first few, or all),
 * the cheapest failing option and its shortfall, and the answer's notes.
 */

export type OptionsAnswer = NonNullable<ExplorerPlantingOptionsQuery['plantingOptions']>
type Option = OptionsAnswer['options'][number]
type Failing = NonNullable<OptionsAnswer['cheapestFailing']>

/** Options listed before "Show all". */
export const OPTIONS_SHOWN = 10

const methodOf = (o: { plantingMethod: string }) =>
  o.plantingMethod === 'DRONE_SEEDED' ? ('drone_seeded' as const) : ('manual' as const)

const unitOf = (o: { plantingMethod: string }) => (methodOf(o) === 'drone_seeded' ? 'pods' : 'trees')

function pointOf(o: Option | Failing): OptionPoint {
  return {
    method: methodOf(o),
    treatments: treatmentsText(o),
    treesPerAcre: o.treesPerAcre,
    probability: o.probability,
    costPerAcre: o.cost.perAcre,
  }
}

/**
 * What an option's least certain status rests on: each cost part's and each effect's status, and
 * whether an effect's share came from the surveys behind a calibrated version.
 */
export function statusDetail(o: Pick<Option, 'cost' | 'treatmentEffects'>): string {
  const parts = o.cost.parts.map(
    (p) => `${p.item}${p.speciesCode ? ` ${p.speciesCode}` : ''}: ${statusWord(p.status)}`,
  )
  const effects = o.treatmentEffects.map(
    (e) =>
      `${e.value} effect: ${statusWord(e.status)}${e.shareFrom === 'calibration' ? ', its share from your surveys' : ''}`,
  )
  return [...parts, ...effects].join('; ')
}

/** "$0.99/tree (0.86–1.63)": per established tree, with its interval. */
function perTreeCell(cost: Option['cost']): string {
  if (cost.perEstablishedTree === null) return 'no tree established'
  const { perEstablishedTreeLower: lower, perEstablishedTreeUpper: upper } = cost
  const interval = lower === null ? '' : ` (${lower.toFixed(2)}–${upper === null ? '…' : upper.toFixed(2)})`
  return `${usd(cost.perEstablishedTree)}/tree${interval}`
}

export class OptionsView {
  private answer: OptionsAnswer | null = null
  private all = false

  constructor(private readonly panel: HTMLElement) {
    this.el('plan-options-more').addEventListener('click', () => {
      this.all = true
      this.renderRows()
    })
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  /** Draws an answer (again, at the panel's width), or says what to do while there is none. */
  render(answer: OptionsAnswer | null, keepAll = false): void {
    if (answer !== this.answer && !keepAll) this.all = false
    this.answer = answer
    const chart = this.el('plan-options-chart')
    this.el('plan-options-table').hidden = !answer?.options.length
    this.el('plan-options-notes').replaceChildren()
    this.el('plan-options-failing').hidden = true
    const summary = this.el('plan-options-summary')
    summary.replaceChildren()
    if (!answer) {
      delete summary.dataset.meets
      chart.replaceChildren(
        placeholder(
          'Press “Find options” for the cheapest ways to meet the standard here: the methods and treatments ticked above, each at the smallest density that meets it.',
        ),
      )
      this.renderRows()
      return
    }
    const { rule, confidence } = answer
    const cheapest = answer.options[0]
    summary.dataset.meets = String(cheapest !== undefined)
    const strong = document.createElement('strong')
    strong.textContent = `${answer.options.length} of ${answer.candidates} ways to plant meet the standard`
    summary.append(
      strong,
      ` (${trees(rule.targetTreesPerAcre)} trees per acre at ${years(rule.horizonYears)}) at ${percent(confidence, 0)} confidence, up to ${trees(answer.maxTreesPerAcre)} per acre.${cheapest ? ` The cheapest: ${METHOD_LABELS[methodOf(cheapest)]}, ${treatmentsText(cheapest)}, ${trees(cheapest.treesPerAcre)} ${unitOf(cheapest)} per acre, ${usd(cheapest.cost.perAcre)} per acre; ${perTreeText(cheapest.cost)}.` : ''}`,
    )
    this.drawChart()
    this.renderRows()
    const failing = answer.cheapestFailing
    const box = this.el('plan-options-failing')
    box.hidden = failing === null
    box.textContent = failing
      ? `Cheapest failing: ${METHOD_LABELS[methodOf(failing)]}, ${treatmentsText(failing)}, at ${trees(failing.treesPerAcre)} ${unitOf(failing)} per acre (the ceiling): a ${percent(failing.probability)} probability, ${((failing.shortfall ?? 0) * 100).toFixed(1)} points short of ${percent(confidence, 0)}, for ${usd(failing.cost.perAcre)} per acre. Least certain figure: ${statusWord(failing.leastCertainStatus)}.`
      : ''
    this.el('plan-options-notes').replaceChildren(
      ...answer.notes.map((note) => {
        const li = document.createElement('li')
        li.textContent = note
        return li
      }),
    )
  }

  /** The chart fills its box (of fixed height: an answer moves nothing below it). */
  drawChart(): void {
    const answer = this.answer
    const chart = this.el('plan-options-chart')
    if (!answer) return
    if (!answer.options.length && !answer.cheapestFailing) {
      chart.replaceChildren(placeholder('No way to plant was weighed.'))
      return
    }
    const width = Math.max(260, Math.floor(chart.clientWidth))
    // Room for the legend above the plot and the x label's descenders below it.
    const height = Math.max(180, Math.floor(chart.clientHeight) - 44)
    const failing = answer.cheapestFailing ? pointOf(answer.cheapestFailing) : null
    chart.replaceChildren(
      optionsChart(answer.options.map(pointOf), failing, answer.confidence, width, height),
    )
  }

  private renderRows(): void {
    const options = this.answer?.options ?? []
    const shown = this.all ? options : options.slice(0, OPTIONS_SHOWN)
    this.el('plan-options-caption').textContent = options.length
      ? `Cheapest first${shown.length < options.length ? `: the first ${shown.length} of ${options.length}` : ''}`
      : ''
    this.el('plan-options-body').replaceChildren(
      ...shown.map((o) => {
        const row = document.createElement('tr')
        row.append(
          stacked(METHOD_LABELS[methodOf(o)], treatmentsText(o)),
          stacked(trees(o.treesPerAcre), unitOf(o)),
          stacked(percent(o.probability), ''),
          stacked(usd(o.cost.perAcre), perTreeCell(o.cost)),
        )
        const status = document.createElement('td')
        // A soft hyphen lets "assumption" break in a phone's narrow column.
        status.textContent = statusWord(o.leastCertainStatus).replace(/^(assump|syn|pub)/, '$1\u00ad')
        status.title = statusDetail(o)
        status.dataset.status = statusWord(o.leastCertainStatus)
        row.append(status)
        row.dataset.costPerAcre = String(o.cost.perAcre)
        return row
      }),
    )
    const more = this.el<HTMLButtonElement>('plan-options-more')
    more.hidden = shown.length >= options.length
    more.textContent = `Show all ${options.length} options`
  }
}

export const PLAN_OPTIONS_HTML = `
<div id="plan-options" class="plan-options" role="tabpanel" aria-labelledby="plan-view-options" hidden>
  <p class="plan-uses">The cheapest ways to meet the standard here: the methods and every combination of the treatment values ticked below, each at its smallest density meeting the standard at the confidence. The point or stand, the species mix, the confidence, the climate and your costs come from the form; the standard is the location’s.</p>
  ${OPTIONS_CHOICES_HTML}
  <div class="plan-actions">
    <button type="button" id="plan-options-find">Find options</button>
    <p id="plan-options-status" class="plan-status" role="status" aria-live="polite"></p>
  </div>
  <div id="plan-options-error" class="plan-error" role="alert" hidden></div>
  <p id="plan-options-summary" class="verdict"></p>
  <h2>Cost per acre against the probability</h2>
  <div id="plan-options-chart" class="chart chart-plan chart-options"></div>
  <p id="plan-options-failing" class="verify-flag" hidden></p>
  <div class="table-scroll">
    <table id="plan-options-table" class="differential plan-options-table" hidden>
      <caption id="plan-options-caption"></caption>
      <colgroup><col class="col-way"><col class="col-density"><col class="col-probability"><col class="col-cost"><col class="col-status"></colgroup>
      <thead><tr><th scope="col">Method, treatments</th><th scope="col">Density per acre</th><th scope="col">Prob&shy;ability</th><th scope="col">Cost per acre, per established tree</th><th scope="col" title="The least certain status of the figures behind it: costs, treatment effects, the standard">Least certain</th></tr></thead>
      <tbody id="plan-options-body"></tbody>
    </table>
  </div>
  <p class="actions"><button type="button" id="plan-options-more" class="secondary" hidden>Show all</button></p>
  <h2>Notes</h2>
  <ul id="plan-options-notes" class="plan-notes"></ul>
</div>`
