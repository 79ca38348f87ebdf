import type { SpeciesOption } from '../page-data.ts'
import { elementIn } from './dom.ts'
import {
  formatShare,
  type MixRow,
  SHARE_SUM_TOLERANCE,
  SPECIES_MIX_MAX,
  shareSum,
} from './plan-mix-checks.ts'

/** One species of the mix as the form shows it. */
export interface MixRowElements {
  row: HTMLElement
  select: HTMLSelectElement
  share: HTMLInputElement
  remove: HTMLButtonElement
  labels: { species: HTMLLabelElement; share: HTMLLabelElement }
}

/**
 * The Plan form's species mix: a row per species (a species and its share), with buttons to add a
 * species, remove one and share equally, and the sum of the shares written under it.
 */
export class SpeciesMix {
  private rowCounter = 0

  /** `changed`: a row was added or removed, or the shares were evened (the plan shown is stale). */
  constructor(
    private readonly panel: HTMLElement,
    private readonly species: readonly SpeciesOption[],
    private readonly changed: () => void,
  ) {
    this.el('plan-add-species').addEventListener('click', () => {
      const used = new Set(this.elements().map((row) => row.select.value))
      const code = this.species.find((s) => !used.has(s.code))?.code ?? this.species[0]?.code ?? ''
      const rest = Math.max(0, 1 - shareSum(this.rows()))
      const row = this.add(code, Number(rest.toFixed(3)))
      row.select.focus()
      this.changed()
    })
    this.el('plan-even').addEventListener('click', () => {
      const rows = this.elements()
      const each = Math.floor((1 / rows.length) * 1000) / 1000
      rows.forEach((row, i) => {
        const share = i === rows.length - 1 ? 1 - each * (rows.length - 1) : each
        row.share.value = String(Number(share.toFixed(3)))
      })
      this.changed()
    })
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  add(code: string, share: number): MixRowElements {
    const n = ++this.rowCounter
    const row = document.createElement('div')
    row.className = 'mix-row'
    const speciesLabel = document.createElement('label')
    speciesLabel.className = 'visually-hidden'
    speciesLabel.htmlFor = `plan-species-${n}`
    const select = document.createElement('select')
    select.id = `plan-species-${n}`
    select.className = 'mix-species'
    for (const species of this.species)
      select.append(new Option(`${species.commonName} (${species.code})`, species.code))
    select.value = code
    const shareLabel = document.createElement('label')
    shareLabel.className = 'visually-hidden'
    shareLabel.htmlFor = `plan-share-${n}`
    const input = document.createElement('input')
    input.id = `plan-share-${n}`
    input.className = 'mix-share'
    input.type = 'number'
    input.inputMode = 'decimal'
    input.min = '0'
    input.max = '1'
    input.step = '0.05'
    input.value = String(share)
    const remove = document.createElement('button')
    remove.type = 'button'
    remove.className = 'mix-remove secondary'
    remove.textContent = '✕'
    remove.addEventListener('click', () => {
      const rows = this.elements()
      const index = rows.findIndex((r) => r.row === row)
      row.remove()
      const left = this.elements()
      this.renumber()
      ;(left[index]?.select ?? this.el('plan-add-species')).focus()
      this.changed()
    })
    row.append(speciesLabel, select, shareLabel, input, remove)
    this.el('plan-mix-rows').append(row)
    this.renumber()
    return { row, select, share: input, remove, labels: { species: speciesLabel, share: shareLabel } }
  }

  elements(): MixRowElements[] {
    return [...this.el('plan-mix-rows').querySelectorAll<HTMLElement>('.mix-row')].map((row) => {
      const [species, share] = [...row.querySelectorAll('label')] as [HTMLLabelElement, HTMLLabelElement]
      return {
        row,
        select: row.querySelector('select') as HTMLSelectElement,
        share: row.querySelector('input') as HTMLInputElement,
        remove: row.querySelector('button') as HTMLButtonElement,
        labels: { species, share },
      }
    })
  }

  rows(): MixRow[] {
    return this.elements().map(({ select, share }) => ({
      speciesCode: select.value,
      share: share.value.trim() === '' ? Number.NaN : Number(share.value),
    }))
  }

  showSum(): void {
    const sum = shareSum(this.rows())
    const ok = Math.abs(sum - 1) <= SHARE_SUM_TOLERANCE
    const text = this.el('plan-mix-sum')
    text.textContent = ok
      ? `Shares sum to ${formatShare(sum)}`
      : `Shares sum to ${formatShare(sum)}: must be 1`
    text.dataset.valid = String(ok)
  }

  /** Labels say "Species 2", "Share of species 2" in the order shown; one species cannot be removed. */
  private renumber(): void {
    const rows = this.elements()
    rows.forEach(({ labels, remove }, i) => {
      labels.species.textContent = `Species ${i + 1}`
      labels.share.textContent = `Share of species ${i + 1}`
      remove.setAttribute('aria-label', `Remove species ${i + 1}`)
      remove.title = `Remove species ${i + 1}`
      remove.disabled = rows.length === 1
    })
    this.el<HTMLButtonElement>('plan-add-species').disabled = rows.length >= SPECIES_MIX_MAX
    this.el<HTMLButtonElement>('plan-even').disabled = rows.length < 2
    this.showSum()
  }
}
