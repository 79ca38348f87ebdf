import { elementIn } from './dom.ts'
import type { PlantingMethod, TreatmentChoicesInput } from './generated/operations.ts'
import { VEGETATION_LABELS } from './plan-treatments.ts'

/*
 * What the Options view weighs: the methods, and the values of each treatment (docs/costs.md →
 * options). Everything but a stock type is weighed unless unticked; a stock type is weighed only where
 * ticked, as the API leaves it unnamed by default. Left as the defaults, nothing is sent and the
 * server weighs every method and treatment.
 */

interface ChoiceGroup {
  /** The input's field, and the checkboxes' name. */
  field: keyof TreatmentChoicesInput | 'methods'
  legend: string
  /** Value as the API's enum names it, label, ticked by default. */
  values: readonly (readonly [string, string, boolean])[]
  /** Ticked boxes may be none (a stock type: then none is named). */
  mayBeEmpty?: true
}

const GROUPS: readonly ChoiceGroup[] = [
  {
    field: 'methods',
    legend: 'Methods',
    values: [
      ['MANUAL', 'Hand planting', true],
      ['DRONE_SEEDED', 'Drone seeding', true],
    ],
  },
  {
    field: 'vegetationControl',
    legend: 'Vegetation control',
    values: Object.entries(VEGETATION_LABELS).map(
      ([value, label]) => [value.toUpperCase(), label, true] as const,
    ),
  },
  {
    field: 'animalProtection',
    legend: 'Animal protection',
    values: [
      ['NONE', 'None', true],
      ['MESH_TUBES', 'Mesh tubes', true],
    ],
  },
  {
    field: 'shade',
    legend: 'Shade',
    values: [
      ['NONE', 'None', true],
      ['SHADE_CARDS', 'Shade cards', true],
    ],
  },
  {
    field: 'stockType',
    legend: 'Stock type',
    values: [
      ['BAREROOT', 'Bareroot', false],
      ['CONTAINER', 'Container', false],
    ],
    mayBeEmpty: true,
  },
]

const boxName = (field: string) => `options-weigh-${field}`

export const OPTIONS_CHOICES_HTML = `
  <fieldset id="options-weigh" class="options-weigh">
    <legend>Weigh</legend>
    ${GROUPS.map(
      (group) => `<fieldset class="options-weigh-group" id="${boxName(group.field)}">
      <legend>${group.legend}</legend>
      ${group.values
        .map(
          ([value, label, ticked]) =>
            `<label class="check"><input type="checkbox" name="${boxName(group.field)}" value="${value}"${ticked ? ' checked' : ''}> ${label}</label>`,
        )
        .join('\n      ')}
    </fieldset>`,
    ).join('\n    ')}
    <p id="options-weigh-error" class="plan-error" role="alert" hidden></p>
  </fieldset>`

/** What the options input gains from the boxes; `problem` names a group left with nothing to weigh. */
export type WeighChoices =
  | { methods?: PlantingMethod[]; treatments?: TreatmentChoicesInput; problem?: undefined }
  | { problem: string }

export class OptionsChoices {
  constructor(private readonly panel: HTMLElement) {}

  private boxes(field: string): HTMLInputElement[] {
    const group = elementIn<HTMLFieldSetElement>(this.panel, boxName(field), 'the plan panel')
    return [...group.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')]
  }

  /** Calls `changed` whenever a box is ticked or unticked. */
  onChange(changed: () => void): void {
    for (const group of GROUPS)
      for (const box of this.boxes(group.field)) box.addEventListener('change', changed)
  }

  read(): WeighChoices {
    const error = elementIn(this.panel, 'options-weigh-error', 'the plan panel')
    const treatments: TreatmentChoicesInput = {}
    let methods: PlantingMethod[] | undefined
    for (const group of GROUPS) {
      const boxes = this.boxes(group.field)
      const ticked = boxes.filter((box) => box.checked).map((box) => box.value)
      if (ticked.length === 0 && !group.mayBeEmpty) {
        error.textContent = `Tick at least one under “${group.legend}”: the options weigh what is ticked.`
        error.hidden = false
        return { problem: error.textContent }
      }
      const asDefault = boxes.every((box) => box.checked === box.defaultChecked)
      if (asDefault) continue
      if (group.field === 'methods') methods = ticked as PlantingMethod[]
      else (treatments as Record<string, string[]>)[group.field] = ticked
    }
    error.hidden = true
    return {
      ...(methods ? { methods } : {}),
      ...(Object.keys(treatments).length ? { treatments } : {}),
    }
  }
}
