import { count, years } from './format.ts'
import {
  classCounts,
  NO_SURVIVAL_COLOUR,
  type ResultHorizon,
  type ResultsCollection,
  type ResultsSummary,
  SURVIVAL_CLASSES,
  VERDICT_STYLES,
  type Verdict,
} from './results-data.ts'

/**
 * The results layer's legend on the map: points by survival class at the horizon, stands by verdict,
 * with counts; hidden while no layer is shown.
 */
export function renderResultsLegend(
  legend: HTMLElement,
  collection: ResultsCollection | null,
  summary: ResultsSummary | null,
  horizon: ResultHorizon,
): void {
  if (!collection || !summary) {
    legend.hidden = true
    legend.replaceChildren()
    return
  }
  const parts: HTMLElement[] = []
  if (summary.points > 0) {
    const counts = classCounts(collection, horizon)
    const items = SURVIVAL_CLASSES.map((c, i) =>
      legendItem('dot', c.colour, c.label, counts[i] ?? 0, { class: String(i) }),
    )
    const none = counts[SURVIVAL_CLASSES.length] ?? 0
    if (none > 0)
      items.push(legendItem('dot', NO_SURVIVAL_COLOUR, `none at ${years(horizon)}`, none, { class: 'none' }))
    parts.push(
      legendTitle(`Points: survival at ${years(horizon)}`),
      legendList('results-legend-points', items),
    )
  }
  if (summary.stands > 0) {
    const verdicts: Verdict[] = ['meets', 'fails']
    if (summary.verdicts.unknown > 0) verdicts.push('unknown')
    parts.push(
      legendTitle('Stands: the standard at the confidence asked'),
      legendList(
        'results-legend-stands',
        verdicts.map((verdict) => {
          const style = VERDICT_STYLES[verdict]
          const item = legendItem('area', style.fill, style.label, summary.verdicts[verdict], { verdict })
          const swatch = item.querySelector('.swatch') as HTMLElement
          swatch.style.borderColor = style.line
          swatch.style.borderStyle = style.dashArray ? 'dashed' : 'solid'
          return item
        }),
      ),
    )
  }
  if (summary.failed > 0) {
    const note = document.createElement('p')
    note.className = 'legend-note'
    note.textContent = `${count(summary.failed, 'failed feature')}: listed, not drawn.`
    parts.push(note)
  }
  legend.replaceChildren(...parts)
  legend.dataset.horizon = String(horizon)
  legend.hidden = parts.length === 0
}

function legendTitle(text: string): HTMLElement {
  const title = document.createElement('p')
  title.className = 'legend-title'
  title.textContent = text
  return title
}

function legendList(className: string, items: HTMLElement[]): HTMLElement {
  const list = document.createElement('ul')
  list.className = `results-legend-list ${className}`
  list.append(...items)
  return list
}

function legendItem(
  shape: 'dot' | 'area',
  colour: string,
  label: string,
  n: number,
  data: Record<string, string>,
): HTMLElement {
  const li = document.createElement('li')
  li.className = 'legend-item'
  Object.assign(li.dataset, data, { colour, count: String(n) })
  const swatch = document.createElement('span')
  swatch.className = `swatch swatch-${shape}`
  // An area's swatch is filled as the stands are, see-through.
  swatch.style.backgroundColor = shape === 'area' ? `${colour}73` : colour
  swatch.setAttribute('aria-hidden', 'true')
  const text = document.createElement('span')
  text.className = 'legend-label'
  text.textContent = label
  const number = document.createElement('span')
  number.className = 'legend-count'
  number.textContent = `(${n.toLocaleString('en-US')})`
  if (n === 0) number.dataset.zero = ''
  li.append(swatch, text, number)
  return li
}
