/** DOM helpers shared by the page's panels. */

/** An element of the page by its id; a missing one is a bug of the page. */
export function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id)
  if (!found) throw new Error(`the page has no #${id}`)
  return found as T
}

/** An element of a region the script builds (a panel, a box) by its id; `region` names it in the error. */
export function elementIn<T extends HTMLElement>(root: ParentNode, id: string, region: string): T {
  const found = root.querySelector(`#${id}`)
  if (!found) throw new Error(`${region} has no #${id}`)
  return found as T
}

/** Marks a region as waiting for an answer: aria-busy for readers, a spinner for eyes. */
export function busy(region: HTMLElement, on: boolean): void {
  region.setAttribute('aria-busy', String(on))
  region.classList.toggle('is-loading', on)
}

export function tableRow(cells: readonly string[]): HTMLTableRowElement {
  const tr = document.createElement('tr')
  for (const text of cells) {
    const td = document.createElement('td')
    td.textContent = text
    tr.append(td)
  }
  return tr
}

/** A table cell of a value with a second, quieter line under it (a method, an interval). */
export function stacked(value: string, under: string): HTMLTableCellElement {
  const td = document.createElement('td')
  td.textContent = value
  if (under) {
    const small = document.createElement('small')
    small.textContent = under
    td.append(small)
  }
  return td
}

export function paragraph(text: string): HTMLParagraphElement {
  const p = document.createElement('p')
  p.textContent = text
  return p
}

/** What a chart box shows before there is anything to chart. */
export function placeholder(text: string): HTMLElement {
  const p = document.createElement('p')
  p.className = 'placeholder'
  p.textContent = text
  return p
}

/** Chart boxes have fixed heights (explorer.css), so an answer never moves what is below them. */
const LEGEND_HEIGHT = 34

export function chartWidth(container: HTMLElement): number {
  return Math.max(280, Math.floor(container.clientWidth))
}

export function chartHeight(container: HTMLElement): number {
  return Math.max(120, Math.floor(container.clientHeight) - LEGEND_HEIGHT)
}

/** What a GeoJSON file input accepts (a stand, a job's results). */
export const GEOJSON_FILE_TYPES = '.geojson,.json,application/geo+json,application/json'
