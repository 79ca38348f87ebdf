import { ExplorerApiError } from './api.ts'
import { busy, elementIn } from './dom.ts'
import {
  ExplorerPlantingOptionsDocument,
  type PlantingOptionsInput,
  type StockingPlanInput,
} from './generated/operations.ts'
import { API_UNREACHABLE, type PanelHost } from './host.ts'
import { OptionsChoices } from './options-choices.ts'
import { type OptionsAnswer, OptionsView } from './options-view.ts'

/**
 * The Plan tab's two views, the plan and its Options (`plantingOptions`): the cheapest ways to meet the
 * standard for the form's point or stand, mix, confidence, climate and costs. The options weigh the
 * methods and treatment values ticked in their own view (options-choices.ts), so the method, density,
 * treatments and standard of the form are not sent.
 */

export type PlanView = 'plan' | 'options'

const STALE = 'Inputs changed: press Find options to update them.'

/** The options input of a plan's input (pinned to the same model version) and what is weighed. */
export function optionsInput(
  plan: StockingPlanInput,
  weigh: Pick<PlantingOptionsInput, 'methods' | 'treatments'> = {},
): PlantingOptionsInput {
  const { latitude, longitude, stand, speciesMix, confidence, costs, climate, modelVersion } = plan
  return {
    ...(stand ? { stand } : { latitude, longitude }),
    speciesMix,
    confidence,
    ...(weigh.methods ? { methods: weigh.methods } : {}),
    ...(weigh.treatments ? { treatments: weigh.treatments } : {}),
    ...(costs ? { costs } : {}),
    ...(climate ? { climate } : {}),
    ...(modelVersion ? { modelVersion } : {}),
  }
}

export class PlanOptions {
  private readonly view: OptionsView
  private readonly choices: OptionsChoices
  private answer: OptionsAnswer | null = null
  private asked = 0
  /** The input the options shown answer. */
  private answeredKey = ''
  private current: PlanView = 'plan'

  /**
   * `read`: the plan's input as the form describes it, or null (the form shows why; `focus` it);
   * `redraw`: draws both views again (a view shown draws its charts at its width).
   */
  constructor(
    private readonly panel: HTMLElement,
    private readonly host: PanelHost,
    private readonly read: (focus: boolean) => StockingPlanInput | null,
    private readonly redraw: () => void,
  ) {
    this.view = new OptionsView(panel)
    this.choices = new OptionsChoices(panel)
    this.choices.onChange(() => this.stale())
    this.el('plan-options-find').addEventListener('click', () => void this.request(true))
    for (const view of ['plan', 'options'] as const) {
      const tab = this.el(`plan-view-${view}`)
      tab.addEventListener('click', () => this.show(view))
      tab.addEventListener('keydown', (event) => {
        if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return
        event.preventDefault()
        const other = view === 'plan' ? 'options' : 'plan'
        this.show(other)
        this.el(`plan-view-${other}`).focus()
      })
    }
    this.select('plan')
  }

  private select(view: PlanView): void {
    this.current = view
    for (const v of ['plan', 'options'] as const) {
      const tab = this.el(`plan-view-${v}`)
      tab.setAttribute('aria-selected', String(v === view))
      tab.tabIndex = v === view ? 0 : -1
    }
    this.el('plan-result').hidden = view !== 'plan'
    this.el('plan-options').hidden = view !== 'options'
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  get shown(): PlanView {
    return this.current
  }

  /** Shows one view; the Options view, opened with nothing found yet, finds what it can. */
  show(view: PlanView): void {
    this.select(view)
    this.redraw()
    if (view === 'options' && !this.answer && this.host.hasKey()) void this.request(false)
  }

  /** The form's inputs changed: the options shown are out of date. */
  stale(): void {
    if (this.answer) this.el('plan-options-status').textContent = STALE
  }

  /** The point, the method or the climate changed: open options are found again. */
  contextChanged(): void {
    if (this.current === 'options' && this.host.hasKey()) void this.request(false)
    else this.stale()
  }

  render(): void {
    if (this.current === 'options') this.view.render(this.answer, true)
  }

  private async request(focus: boolean): Promise<void> {
    const status = this.el('plan-options-status')
    const error = this.el('plan-options-error')
    error.hidden = true
    if (!this.host.hasKey()) {
      error.textContent = 'Enter your API key above (or get a free spore key) to find options.'
      error.hidden = false
      return
    }
    const plan = this.read(focus)
    if (!plan) {
      status.textContent = this.answer ? STALE : ''
      return
    }
    const weigh = this.choices.read()
    if (weigh.problem !== undefined) {
      status.textContent = this.answer ? STALE : ''
      return
    }
    const input = optionsInput(plan, weigh)
    // Asked again by a change the options do not depend on (the method): the answer shown stands.
    const key = JSON.stringify(input)
    if (!focus && this.answer && key === this.answeredKey) return
    const asked = ++this.asked
    status.textContent = 'Finding options…'
    busy(this.panel, true)
    try {
      const { data, errors } = await this.host.api.query(ExplorerPlantingOptionsDocument, { input })
      if (asked !== this.asked) return
      this.answeredKey = key
      this.answer = data.plantingOptions ?? null
      if (!this.answer) {
        status.textContent = ''
        this.showError(errors[0] ?? null)
      } else
        status.textContent = `Found at ${new Date().toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })}.`
      this.view.render(this.answer)
    } catch (failure) {
      if (asked !== this.asked) return
      status.textContent = ''
      this.showError(failure)
    } finally {
      if (asked === this.asked) busy(this.panel, false)
    }
  }

  private showError(failure: unknown): void {
    const box = this.el('plan-options-error')
    box.textContent = failure instanceof ExplorerApiError ? this.host.messageFor(failure) : API_UNREACHABLE
    box.hidden = false
  }
}

export const PLAN_VIEWS_HTML = `
<div class="plan-views" role="tablist" aria-label="What the Plan tab shows">
  <button type="button" role="tab" id="plan-view-plan" aria-controls="plan-result" aria-selected="true">Result</button>
  <button type="button" role="tab" id="plan-view-options" aria-controls="plan-options" aria-selected="false">Options</button>
</div>`
