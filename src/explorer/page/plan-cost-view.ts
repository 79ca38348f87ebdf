import { elementIn, stacked, tableRow } from './dom.ts'
import { percent, trees, years } from './format.ts'
import type { ExplorerPlanCostFragment } from './generated/operations.ts'
import { treatmentWords } from './plan-treatments.ts'

/**
 * A plan's cost block (docs/costs.md): per acre planted, per tree established at the rule's horizon
 * with its interval, what each part costs and what its figure rests on; and the plan's treatments
 * with their effects' statuses.
 */

export type PlanCostAnswer = ExplorerPlanCostFragment

/** USD with cents: "$249.00", "$0.87". */
export const usd = (value: number): string =>
  value.toLocaleString('en-US', { style: 'currency', currency: 'USD' })

/** A status as the page writes it: lower case ("assumption"). */
export const statusWord = (status: string): string => status.toLowerCase()

const ITEM_LABELS: Record<string, string> = {
  seedlings: 'Seedlings',
  planting: 'Planting labour',
  site_preparation: 'Site preparation',
  release: 'Release',
  tubes: 'Mesh tubes, installed',
  shade_cards: 'Shade cards',
  drone_seeding: 'Drone flight',
  seed_pods: 'Seed pods',
}

const UNIT_LABELS: Record<string, string> = { per_tree: 'tree', per_acre: 'acre', per_pod: 'pod' }

/** "$0.87 per established tree (90% interval $0.84–$1.04)"; the interval's open end when it has one. */
export function perTreeText(cost: PlanCostAnswer): string {
  if (cost.perEstablishedTree === null) return 'no tree expected to be established'
  const { perEstablishedTreeLower: lower, perEstablishedTreeUpper: upper } = cost
  const interval =
    lower === null
      ? ''
      : ` (${percent(cost.intervalLevel, 0)} interval ${usd(lower)}–${upper === null ? 'unbounded' : usd(upper)})`
  return `${usd(cost.perEstablishedTree)} per established tree${interval}`
}

export interface AppliedEffect {
  treatment: string
  value: string
  status: string
}

export class PlanCostView {
  constructor(private readonly panel: HTMLElement) {}

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  render(cost: PlanCostAnswer | null, effects: readonly AppliedEffect[] | null): void {
    const box = this.el('plan-cost')
    box.hidden = cost === null
    this.el('plan-cost-summary').replaceChildren()
    this.el('plan-cost-body').replaceChildren()
    this.el('plan-treated').textContent = ''
    if (!cost) return
    const strong = document.createElement('strong')
    strong.textContent = `${usd(cost.perAcre)} per acre planted`
    this.el('plan-cost-summary').append(
      strong,
      `; ${perTreeText(cost)}, ${trees(cost.establishedTreesPerAcre)} trees per acre established at ${years(cost.horizonYears)}. Least certain figure: ${statusWord(cost.leastCertainStatus)}.`,
    )
    this.el('plan-cost-body').replaceChildren(
      ...cost.parts.map((part) => {
        const row = tableRow([
          `${ITEM_LABELS[part.item] ?? part.item}${part.speciesCode ? ` (${part.speciesCode})` : ''}`,
        ])
        row.append(
          stacked(
            `${usd(part.unitCost)}/${UNIT_LABELS[part.unit] ?? part.unit}`,
            `× ${part.unit === 'per_acre' ? part.quantity : trees(part.quantity)}`,
          ),
          stacked(usd(part.perAcre), ''),
          stacked(statusWord(part.status), part.priceYear === null ? '' : String(part.priceYear)),
        )
        return row
      }),
    )
    this.el('plan-treated').textContent = effects?.length
      ? `Treatments: ${effects.map((e) => `${treatmentWords(e.treatment, e.value) ?? e.value} (its effect: ${statusWord(e.status)})`).join('; ')}.`
      : 'Untreated.'
  }
}

export const PLAN_COST_HTML = `
  <div id="plan-cost" class="plan-cost" hidden>
    <h2>Cost</h2>
    <p id="plan-cost-summary" class="summary plan-cost-summary"></p>
    <table class="differential plan-cost-parts">
      <caption>What it is made of, per acre</caption>
      <thead><tr><th scope="col">Part</th><th scope="col">Unit cost × quantity</th><th scope="col">Per acre</th><th scope="col">Status, price year</th></tr></thead>
      <tbody id="plan-cost-body"></tbody>
    </table>
    <p id="plan-treated" class="summary plan-treated"></p>
  </div>`
