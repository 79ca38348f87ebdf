import type { CostDefaultOption } from '../page-data.ts'
import { elementIn } from './dom.ts'
import type { CostsInput } from './generated/operations.ts'

/**
 * The Plan tab's cost inputs (docs/costs.md): each replaces one default of data/costs.json, shown
 * under it with its status and price year; empty keeps the default. The seedling price given applies
 * to every species of the mix.
 */

type Figure = Exclude<keyof CostsInput, 'seedlings'>

/** The API's limits: per tree (and per pod) 0 to 1,000 USD, per acre 0 to 100,000 USD. */
const PER_TREE_MAX = 1000
const PER_ACRE_MAX = 100_000

interface CostField {
  /** The input's id, after `plan-cost-`. */
  id: string
  item: string
  label: string
  unit: 'tree' | 'acre' | 'pod'
  field: Figure | 'seedlings'
}

const FIELDS: readonly CostField[] = [
  { id: 'seedlings', item: 'seedlings', label: 'Seedlings', unit: 'tree', field: 'seedlings' },
  { id: 'planting', item: 'planting', label: 'Planting labour', unit: 'tree', field: 'plantingPerTree' },
  {
    id: 'site-prep',
    item: 'site_preparation',
    label: 'Site preparation',
    unit: 'acre',
    field: 'sitePreparationPerAcre',
  },
  { id: 'release', item: 'release', label: 'One release', unit: 'acre', field: 'releasePerAcre' },
  { id: 'tubes', item: 'tubes', label: 'Tube, installed', unit: 'tree', field: 'tubesPerTree' },
  { id: 'shade', item: 'shade_cards', label: 'Shade card', unit: 'tree', field: 'shadeCardsPerTree' },
  { id: 'drone', item: 'drone_seeding', label: 'Drone flight', unit: 'acre', field: 'droneSeedingPerAcre' },
  { id: 'pods', item: 'seed_pods', label: 'Seed pod', unit: 'pod', field: 'seedPodPerPod' },
]

/** "0.46 (synthesis, undated)": a default's figure and what it rests on. */
function defaultText(figure: CostDefaultOption): string {
  const year = figure.priceYear === null ? 'undated' : String(figure.priceYear)
  const species = figure.species ? `${figure.species} ` : ''
  return `${species}${figure.value} (${figure.status}, ${year})`
}

export function planCostsHtml(defaults: readonly CostDefaultOption[]): string {
  const fields = FIELDS.map((f) => {
    const figures = defaults.filter((d) => d.item === f.item)
    const shown = figures.map(defaultText).join('; ')
    const notes = figures.map((d) => d.priceYearNote ?? '').join('; ')
    const placeholder = f.field === 'seedlings' ? 'each species’ own' : String(figures[0]?.value ?? '')
    return `<div class="field cost-field">
        <label for="plan-cost-${f.id}">${f.label} ($/${f.unit})</label>
        <input id="plan-cost-${f.id}" name="plan-cost-${f.id}" type="number" inputmode="decimal" min="0" step="any" placeholder="${placeholder}" aria-describedby="plan-cost-${f.id}-default">
        <small id="plan-cost-${f.id}-default" class="cost-default" title="Price year: ${escapeAttribute(notes)}">Default: ${escapeText(shown)}</small>
      </div>`
  }).join('')
  return `
  <details id="plan-costs" class="plan-standard plan-costs">
    <summary>Costs (optional): your own figures</summary>
    <p class="plan-uses">Empty: the default, shown under each with its status (published, synthesis or an assumption, which is not a finding) and price year. A figure given counts as “given”.</p>
    <div class="plan-grid cost-grid">${fields}</div>
  </details>`
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;')
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;')
}

export class CostInputs {
  constructor(private readonly panel: HTMLElement) {}

  private input(field: CostField): HTMLInputElement {
    return elementIn<HTMLInputElement>(this.panel, `plan-cost-${field.id}`, 'the plan panel')
  }

  /**
   * The figures given, for a mix of `speciesCodes` (null: none given), or the first out of range with
   * its input.
   */
  read(
    speciesCodes: readonly string[],
  ): { costs: CostsInput | null } | { problem: { message: string; input: HTMLInputElement } } {
    const costs: CostsInput = {}
    for (const field of FIELDS) {
      const input = this.input(field)
      const text = input.value.trim()
      if (text === '') continue
      const value = Number(text)
      const max = field.unit === 'acre' ? PER_ACRE_MAX : PER_TREE_MAX
      if (!(Number.isFinite(value) && value >= 0 && value <= max))
        return {
          problem: {
            message: `${field.label}: a cost must be from 0 to ${max.toLocaleString('en-US')} USD per ${field.unit}.`,
            input,
          },
        }
      if (field.field === 'seedlings')
        costs.seedlings = [...new Set(speciesCodes)].map((speciesCode) => ({ speciesCode, perTree: value }))
      else costs[field.field] = value
    }
    return { costs: Object.keys(costs).length ? costs : null }
  }

  /** The inputs holding a figure (an API refusal of the costs is about one of them). */
  given(): HTMLInputElement[] {
    return FIELDS.map((f) => this.input(f)).filter((input) => input.value.trim() !== '')
  }

  /** Opens the costs, so an input marked invalid is seen. */
  open(): void {
    elementIn<HTMLDetailsElement>(this.panel, 'plan-costs', 'the plan panel').open = true
  }
}
