import type { SpeciesOption } from '../page-data.ts'
import { elementIn } from './dom.ts'
import type { StockingPlanInput } from './generated/operations.ts'
import {
  CONFIDENCE_MAX_PERCENT,
  CONFIDENCE_MIN_PERCENT,
  TREES_PER_ACRE_MAX,
  TREES_PER_HECTARE_PER_ACRE,
} from './plan-bounds.ts'
import { CostInputs } from './plan-costs.ts'
import type { PlanField } from './plan-error-fields.ts'
import { SpeciesMix } from './plan-mix.ts'
import { mixProblem } from './plan-mix-checks.ts'
import type { LoadedStand } from './plan-stand.ts'
import { TreatmentToggles } from './plan-treatments.ts'
import { type Climate, GRAPHQL_METHOD, type Method, type Point } from './state.ts'

export type Target = 'point' | 'stand'
type DensityUnit = 'acre' | 'hectare'

/** A problem the page found before asking, or the API's answer to one it did not. */
export interface Problem {
  message: string
  field: PlanField | null
  /** Mix rows (0-based) the problem is about, and whether their species or their shares are wrong. */
  rows?: number[]
  mixSpecies?: boolean
  /** The one input the problem is about, when the form knows it (a cost). */
  input?: HTMLElement
}

/** What the plan is for, besides the form: the target, and the page's point, method and climate. */
export interface PlanContext {
  target: Target
  point: Point | null
  stand: LoadedStand | null
  method: Method
  climate: Climate | null
}

const DEFAULT_DENSITY_TPA = 300
const DEFAULT_CONFIDENCE_PERCENT = 90
const RULE_SETS: [string, string][] = [
  ['', 'From the location'],
  ['or_fpa', 'Oregon (or_fpa)'],
  ['wa_fpa_west', 'Washington, west of the crest (wa_fpa_west)'],
  ['wa_fpa_east', 'Washington, east of the crest (wa_fpa_east)'],
]
const SITE_CLASSES: [string, string][] = [
  ['', 'The modelled class'],
  ['I-III', 'I–III'],
  ['IV-V', 'IV–V'],
  ['VI', 'VI'],
]

/**
 * The Plan tab's form: the planted density and its unit, the confidence, the species mix and the
 * optional standard, read into a `stockingPlan` input (checked as the API would check it first), and
 * the problem with them shown under the form.
 */
export class PlanForm {
  readonly mix: SpeciesMix
  readonly treatments: TreatmentToggles
  readonly costs: CostInputs

  /**
   * `firstSpecies`: the mix's first species. `drawing`: whether a stand is being drawn on the map (the
   * problem is then that it is not closed). `changed`: the mix changed by its buttons.
   */
  constructor(
    private readonly panel: HTMLElement,
    private readonly speciesList: readonly SpeciesOption[],
    firstSpecies: string,
    private readonly drawing: () => boolean,
    changed: () => void,
  ) {
    this.el<HTMLInputElement>('plan-density').value = String(DEFAULT_DENSITY_TPA)
    this.el<HTMLInputElement>('plan-confidence').value = String(DEFAULT_CONFIDENCE_PERCENT)
    const ruleSet = this.el<HTMLSelectElement>('plan-rule-set')
    for (const [value, label] of RULE_SETS) ruleSet.append(new Option(label, value))
    const siteClass = this.el<HTMLSelectElement>('plan-site-class')
    for (const [value, label] of SITE_CLASSES) siteClass.append(new Option(label, value))
    this.mix = new SpeciesMix(panel, speciesList, changed)
    this.treatments = new TreatmentToggles(panel)
    this.costs = new CostInputs(panel)
    this.mix.add(firstSpecies, 1)
    const unit = this.el<HTMLSelectElement>('plan-density-unit')
    unit.addEventListener('change', () => {
      // The density keeps its meaning when its unit changes.
      const density = this.el<HTMLInputElement>('plan-density')
      const value = Number(density.value)
      if (density.value.trim() !== '' && Number.isFinite(value)) {
        const converted =
          unit.value === 'hectare' ? value * TREES_PER_HECTARE_PER_ACRE : value / TREES_PER_HECTARE_PER_ACRE
        density.value = String(Math.round(converted))
      }
    })
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  private speciesName = (code: string): string =>
    this.speciesList.find((s) => s.code === code)?.commonName ?? code

  /** The input of the plan the form describes, or the first problem with it. */
  read(context: PlanContext): { input: StockingPlanInput } | { problem: Problem } {
    const { point, method, climate } = context
    let where: Partial<StockingPlanInput>
    if (context.target === 'point') {
      if (!point)
        return {
          problem: {
            message: 'Choose a point first: click the map, or enter its coordinates above.',
            field: 'point',
          },
        }
      where = { latitude: point.latitude, longitude: point.longitude }
    } else {
      if (this.drawing())
        return {
          problem: {
            message: 'Close the stand first: double-click the map, or press “Close stand”.',
            field: 'stand',
          },
        }
      if (!context.stand)
        return {
          problem: { message: 'Draw a stand on the map, or load a GeoJSON file, first.', field: 'stand' },
        }
      where = { stand: context.stand.geometry }
    }
    const unit = this.el<HTMLSelectElement>('plan-density-unit').value as DensityUnit
    const densityText = this.el<HTMLInputElement>('plan-density').value.trim()
    const density = Number(densityText)
    const maxDensity =
      unit === 'acre' ? TREES_PER_ACRE_MAX : Math.round(TREES_PER_ACRE_MAX * TREES_PER_HECTARE_PER_ACRE)
    if (densityText === '' || !(density > 0 && density <= maxDensity))
      return {
        problem: {
          message: `The planted density must be above 0 and at most ${maxDensity.toLocaleString('en-US')} trees per ${unit}.`,
          field: 'density',
        },
      }
    const confidenceText = this.el<HTMLInputElement>('plan-confidence').value.trim()
    const confidence = Number(confidenceText)
    if (
      confidenceText === '' ||
      !(confidence >= CONFIDENCE_MIN_PERCENT && confidence <= CONFIDENCE_MAX_PERCENT)
    )
      return {
        problem: {
          message: `The confidence must be from ${CONFIDENCE_MIN_PERCENT} to ${CONFIDENCE_MAX_PERCENT} %.`,
          field: 'confidence',
        },
      }
    const rows = this.mix.rows()
    const mix = mixProblem(rows, this.speciesName)
    if (mix)
      return {
        problem: { message: mix.message, field: 'mix', rows: mix.rows, mixSpecies: mix.kind === 'species' },
      }
    const targetText = this.el<HTMLInputElement>('plan-custom-target').value.trim()
    const target = Number(targetText)
    if (targetText !== '' && !(target > 0 && target <= TREES_PER_ACRE_MAX))
      return {
        problem: {
          message: `A custom target must be above 0 and at most ${TREES_PER_ACRE_MAX.toLocaleString('en-US')} trees per acre.`,
          field: 'target',
        },
      }
    const costs = this.costs.read(rows.map((row) => row.speciesCode))
    if ('problem' in costs) return { problem: { ...costs.problem, field: 'costs' } }
    const treatments = this.treatments.read(method)
    const ruleSet = this.el<HTMLSelectElement>('plan-rule-set').value
    const siteClass = this.el<HTMLSelectElement>('plan-site-class').value
    return {
      input: {
        ...where,
        plantingMethod: GRAPHQL_METHOD[method],
        speciesMix: rows.map(({ speciesCode, share }) => ({ speciesCode, share })),
        ...(unit === 'acre' ? { treesPerAcre: density } : { treesPerHectare: density }),
        confidence: Math.round(confidence) / 100,
        ...(ruleSet ? { ruleSet } : {}),
        ...(siteClass ? { siteClass } : {}),
        ...(targetText !== '' ? { targetTreesPerAcre: target } : {}),
        ...(climate ? { climate } : {}),
        ...(treatments ? { treatments } : {}),
        ...(costs.costs ? { costs: costs.costs } : {}),
      },
    }
  }

  /** The problem under the form, the inputs it is about marked invalid (and, asked by the button, focused). */
  show(problem: Problem, focus: boolean): void {
    this.clear()
    const box = this.el('plan-error')
    box.textContent = problem.message
    box.dataset.field = problem.field ?? ''
    box.hidden = false
    const inputs = this.inputsOf(problem)
    for (const input of inputs) input.setAttribute('aria-invalid', 'true')
    if (focus) (inputs[0] ?? box).focus()
  }

  clear(): void {
    const box = this.el('plan-error')
    box.hidden = true
    box.textContent = ''
    for (const input of this.panel.querySelectorAll('[aria-invalid="true"]'))
      input.removeAttribute('aria-invalid')
  }

  private inputsOf(problem: Problem): HTMLElement[] {
    const mix = this.mix.elements()
    switch (problem.field) {
      case 'mix': {
        const rows = problem.rows ?? mix.map((_, i) => i)
        return rows.flatMap((i): HTMLElement[] => {
          const row = mix[i]
          if (!row) return []
          return [problem.mixSpecies ? row.select : row.share]
        })
      }
      case 'density':
        return [this.el('plan-density')]
      case 'confidence':
        return [this.el('plan-confidence')]
      case 'target':
        return this.openStandard([this.el('plan-custom-target')])
      case 'ruleSet':
        return this.openStandard([this.el('plan-rule-set')])
      case 'siteClass':
        return this.openStandard([this.el('plan-site-class')])
      case 'stand':
        return this.drawing() ? [this.el('plan-finish')] : [this.el('plan-file')]
      case 'treatments':
        return this.treatments.chosen()
      case 'costs':
        this.costs.open()
        return problem.input ? [problem.input] : this.costs.given()
      default:
        return []
    }
  }

  private openStandard(inputs: HTMLElement[]): HTMLElement[] {
    this.el<HTMLDetailsElement>('plan-standard').open = true
    return inputs
  }
}
