import L from 'leaflet'
import { divergingColour, divergingColours, divergingLegend } from './charts.ts'
import { percent, points } from './format.ts'

/** One survey of a plot as the map draws it: where, what, and observed beside predicted survival. */
export interface SurveyPlotMark {
  plotId: string
  surveyedOn: string
  latitude: number
  longitude: number
  speciesCode: string
  /** The planting method in words ("Hand planting"). */
  method: string
  planted: number
  alive: number
  observedSurvival: number
  predictedSurvival: number
}

/** A plot: a dot with a dark outline, its fill observed − predicted. */
const PLOT_MARK = { radius: 6, weight: 1, color: '#263238', fillOpacity: 0.9 } as const

export const observedMinusPredicted = (plot: SurveyPlotMark): number =>
  plot.observedSurvival - plot.predictedSurvival

/**
 * The Observations tab's layer: the account's plots as dots (SVG, in a pane of their own above a job's
 * results), each coloured by observed − predicted survival on the diverging scale the survival map's
 * change from today uses, with a legend in the map's corner. Shown while the tab is open.
 */
export class SurveyLayer {
  /** The layer's legend, stacked with the map's other legends. */
  readonly legend: HTMLElement
  private readonly pane: HTMLElement
  private dots: L.FeatureGroup | null = null

  constructor(private readonly map: L.Map) {
    this.pane = map.createPane('surveys')
    this.pane.style.zIndex = '397'
    this.legend = document.createElement('div')
    this.legend.id = 'surveys-legend'
    this.legend.className = 'surveys-legend'
    this.legend.hidden = true
  }

  /**
   * Draws the plots (replacing those drawn before), with `note` under the legend's ramp. Each dot's
   * path carries its plot and difference as data attributes, for scripts that read the map.
   */
  show(plots: readonly SurveyPlotMark[], note: string): void {
    this.clear()
    const colours = divergingColours(plots.map(observedMinusPredicted))
    const fill = divergingColour(colours)
    const dots = L.featureGroup(
      plots.map((plot) =>
        L.circleMarker([plot.latitude, plot.longitude], {
          ...PLOT_MARK,
          pane: 'surveys',
          fillColor: fill(observedMinusPredicted(plot)),
          className: 'survey-plot',
          // A click on a plot shows its tooltip; it does not choose a planting point.
          bubblingMouseEvents: false,
        }).bindTooltip(plotTooltip(plot), { direction: 'top', offset: L.point(0, -4) }),
      ),
    ).addTo(this.map)
    plots.forEach((plot, index) => {
      const path = (dots.getLayers()[index] as L.CircleMarker).getElement()
      path?.setAttribute('data-plot', plot.plotId)
      path?.setAttribute('data-difference', String(observedMinusPredicted(plot)))
    })
    this.dots = dots
    const title = document.createElement('p')
    title.className = 'legend-title'
    title.textContent = 'Survey plots: observed − predicted survival, percentage points'
    const caption = document.createElement('p')
    caption.className = 'legend-note'
    caption.textContent = note
    this.legend.replaceChildren(title, divergingLegend(colours), caption)
    this.legend.dataset.scale = 'diverging'
    this.legend.dataset.domain = colours.domain.join(',')
    this.legend.dataset.plots = String(plots.length)
    this.legend.hidden = this.pane.style.display === 'none'
  }

  /** The plots (and their legend) on the map, or out of sight while another tab is open. */
  setVisible(on: boolean): void {
    this.pane.style.display = on ? '' : 'none'
    this.legend.hidden = !on || !this.dots
  }

  /** The map around the plots drawn, clear of the legends in its lower corner. */
  fit(legendsHeight: number): void {
    const bounds = this.dots?.getBounds()
    if (!bounds?.isValid()) return
    this.map.fitBounds(bounds, {
      paddingTopLeft: L.point(40, 40),
      paddingBottomRight: L.point(40, Math.min(legendsHeight + 40, this.map.getSize().y / 2)),
      maxZoom: 7,
    })
  }

  clear(): void {
    this.dots?.remove()
    this.dots = null
    this.legend.hidden = true
    this.legend.replaceChildren()
    delete this.legend.dataset.domain
    delete this.legend.dataset.plots
  }
}

function plotTooltip(plot: SurveyPlotMark): string {
  const text = `${plot.plotId}, surveyed ${plot.surveyedOn}: ${plot.speciesCode}, ${plot.method.toLowerCase()}. ${plot.alive} of ${plot.planted} alive (${percent(plot.observedSurvival)}), predicted ${percent(plot.predictedSurvival)}: ${points(observedMinusPredicted(plot))}`
  // Tooltips are HTML: the plot id is the caller's own text.
  const escaped = document.createElement('span')
  escaped.textContent = text
  return escaped.innerHTML
}
