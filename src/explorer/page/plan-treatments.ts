import { elementIn } from './dom.ts'
import type {
  AnimalProtection,
  Shade,
  StockType,
  TreatmentsInput,
  VegetationControl,
} from './generated/operations.ts'
import type { Method } from './state.ts'

/**
 * The Plan tab's treatment toggles (docs/treatments.md): vegetation control, mesh tubes, a stock type and
 * shade cards, sent with the plan. Drone seeding takes only vegetation control, so the others are
 * disabled (and not sent) while it is the method.
 */

/** Vegetation control as the API names its values (the options answer them in lowercase). */
export const VEGETATION_LABELS: Record<string, string> = {
  none: 'None',
  site_prep: 'Site preparation',
  release_1yr: 'One release',
  release_2yr: 'Two releases',
  site_prep_release_1yr: 'Site prep + one release',
  site_prep_release_2yr: 'Site prep + two releases',
}

/** A treatment's value in a few words ("two releases", "tubes"); null for none or not named. */
export function treatmentWords(treatment: string, value: string | null | undefined): string | null {
  if (!value || value === 'none') return null
  if (treatment === 'vegetation_control') return (VEGETATION_LABELS[value] ?? value).toLowerCase()
  if (treatment === 'animal_protection') return 'mesh tubes'
  if (treatment === 'shade') return 'shade cards'
  if (treatment === 'stock_type') return value
  return value
}

/** An option's or a plan's treatments in a few words: "two releases, mesh tubes", or "no treatment". */
export function treatmentsText(values: {
  vegetationControl?: string | null
  animalProtection?: string | null
  stockType?: string | null
  shade?: string | null
}): string {
  const words = [
    treatmentWords('vegetation_control', values.vegetationControl),
    treatmentWords('animal_protection', values.animalProtection),
    treatmentWords('stock_type', values.stockType),
    treatmentWords('shade', values.shade),
  ].filter((w): w is string => w !== null)
  return words.length ? words.join(', ') : 'no treatment'
}

const vegetationOptions = Object.entries(VEGETATION_LABELS)
  .map(([value, label]) => `<option value="${value.toUpperCase()}">${label}</option>`)
  .join('')

export const PLAN_TREATMENTS_HTML = `
  <fieldset id="plan-treatments" class="plan-treatments">
    <legend>Treatments</legend>
    <div class="plan-grid">
      <div class="field"><label for="plan-vegetation">Vegetation control</label><select id="plan-vegetation" name="plan-vegetation">${vegetationOptions}</select></div>
      <div class="field"><label for="plan-stock">Stock type</label><select id="plan-stock" name="plan-stock"><option value="">Not named</option><option value="BAREROOT">Bareroot</option><option value="CONTAINER">Container</option></select></div>
      <label class="check"><input type="checkbox" id="plan-tubes" name="plan-tubes"> Mesh tubes</label>
      <label class="check"><input type="checkbox" id="plan-shade" name="plan-shade"> Shade cards</label>
    </div>
    <p id="plan-treatments-note" class="plan-uses"></p>
  </fieldset>`

const HAND_ONLY = ['plan-stock', 'plan-tubes', 'plan-shade'] as const

export class TreatmentToggles {
  constructor(private readonly panel: HTMLElement) {}

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  /** The method chosen above: drone seeding takes only vegetation control. */
  reflect(method: Method): void {
    const drone = method === 'drone_seeded'
    for (const id of HAND_ONLY) this.el<HTMLInputElement | HTMLSelectElement>(id).disabled = drone
    this.el('plan-treatments-note').textContent = drone
      ? 'Drone seeding takes only vegetation control: tubes, a stock type and shade cards apply to planted seedlings.'
      : 'Each acts only where its factor is a risk here; an unsure effect widens the interval.'
  }

  /** The treatment inputs chosen (an API refusal of the treatments is about one of them). */
  chosen(): HTMLElement[] {
    const vegetation = this.el<HTMLSelectElement>('plan-vegetation')
    const stock = this.el<HTMLSelectElement>('plan-stock')
    const checks = ['plan-tubes', 'plan-shade'].map((id) => this.el<HTMLInputElement>(id))
    return [
      ...(vegetation.value !== 'NONE' ? [vegetation] : []),
      ...(stock.value && !stock.disabled ? [stock] : []),
      ...checks.filter((check) => check.checked && !check.disabled),
    ]
  }

  /** The treatments to send for `method`, or null when none is chosen (the untreated plan). */
  read(method: Method): TreatmentsInput | null {
    const input: TreatmentsInput = {}
    const vegetation = this.el<HTMLSelectElement>('plan-vegetation').value as VegetationControl
    if (vegetation !== 'NONE') input.vegetationControl = vegetation
    if (method === 'manual') {
      if (this.el<HTMLInputElement>('plan-tubes').checked)
        input.animalProtection = 'MESH_TUBES' satisfies AnimalProtection
      const stock = this.el<HTMLSelectElement>('plan-stock').value
      if (stock) input.stockType = stock as StockType
      if (this.el<HTMLInputElement>('plan-shade').checked) input.shade = 'SHADE_CARDS' satisfies Shade
    }
    return Object.keys(input).length ? input : null
  }
}
