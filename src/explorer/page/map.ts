import L from 'leaflet'
import { stateOutlines } from './basemap.ts'
import {
  divergingColour,
  divergingColours,
  divergingLegend,
  survivalColour,
  survivalLegend,
} from './charts.ts'
import { percent, points } from './format.ts'
import { ResultsLayer } from './map-results.ts'
import { StandLayer } from './map-stand.ts'
import { SurveyLayer } from './map-surveys.ts'
import type { MapMode, Point } from './state.ts'

/** Oregon and Washington, with a margin. */
const REGION = L.latLngBounds([41.6, -125.0], [49.3, -116.2])

export interface SurvivalCell {
  h3Index: string
  boundary: number[][]
  meanSurvival: number
  minSurvival: number
  maxSurvival: number
  sites: number
  /** Future mean − today's mean; null on today's map. */
  changeFromToday: number | null
}

/** How to draw a survival map: what it colours, the legend's title, and a caveat under the legend. */
export interface CellView {
  mode: MapMode
  label: string
  note: string | null
}

export interface MatchedSite {
  latitude: number
  longitude: number
  matchedLatitude: number
  matchedLongitude: number
  matchDistanceKm: number
}

/**
 * The map: state outlines, the API's coverage, the chosen point and the site that answered it,
 * the survival-map layer with its legend, plain messages (outside coverage, no data nearby), and the
 * layers of the Plan tab's stand, of a job's results and of the account's survey plots.
 */
export class ExplorerMap {
  readonly stand: StandLayer
  readonly results: ResultsLayer
  readonly surveys: SurveyLayer
  private readonly map: L.Map
  private readonly marks = L.layerGroup()
  private coverage: L.GeoJSON | undefined
  private cells: L.GeoJSON | undefined
  private readonly colour = survivalColour()
  /** The results layer's and the survey plots' legends above the survival map's, in the map's lower corner. */
  private readonly legends: HTMLElement

  constructor(
    private readonly element: HTMLElement,
    private readonly message: HTMLElement,
    private readonly legend: HTMLElement,
    onPick: (point: Point) => void,
  ) {
    this.map = L.map(element, {
      zoomSnap: 0.25,
      minZoom: 5,
      maxZoom: 13,
      maxBounds: REGION.pad(0.5),
      attributionControl: true,
    })
    this.map.attributionControl.setPrefix(false)
    this.map.attributionControl.addAttribution('State outlines: US Census Bureau via us-atlas')
    // Panes, bottom up: the state outlines (the base map), the survival cells, a job's results, then
    // outlines and marks.
    this.map.createPane('base').style.zIndex = '250'
    this.map.createPane('cells').style.zIndex = '390'
    this.map.createPane('results').style.zIndex = '395'
    this.legends = document.createElement('div')
    this.legends.className = 'map-legends'
    this.results = new ResultsLayer(this.map, element, this.legends)
    this.surveys = new SurveyLayer(this.map)
    legend.before(this.legends)
    this.legends.append(this.results.legend, this.surveys.legend, legend)
    L.geoJSON(stateOutlines(), {
      pane: 'base',
      interactive: false,
      style: (state) => ({
        color: '#6b6b6b',
        weight: state?.properties.covered ? 1.5 : 0.8,
        fillColor: state?.properties.covered ? '#f4efe3' : '#e4e4e0',
        fillOpacity: 1,
      }),
    }).addTo(this.map)
    this.marks.addTo(this.map)
    this.stand = new StandLayer(this.map, element)
    // The view in the page, for scripts that drive it (and its browser test): south,west,north,east.
    this.map.on('moveend zoomend resize', () => this.publishView())
    this.map.fitBounds(REGION)
    this.publishView()
    // While a stand is drawn, clicks add its vertices; else a click on a result opens its popup.
    this.map.on('click', (event: L.LeafletMouseEvent) => {
      if (this.stand.drawing) this.stand.click(event.latlng)
      else if (!this.results.click(event)) onPick({ latitude: event.latlng.lat, longitude: event.latlng.lng })
    })
    this.map.on('dblclick', () => {
      if (this.stand.drawing) this.stand.finishSketch()
    })
    this.map.on('mousemove', (event: L.LeafletMouseEvent) => {
      if (this.stand.drawing) this.stand.pointerAt(event.latlng)
      else this.results.hover(event)
    })
    this.map.on('mouseout', () => this.stand.pointerAt(null))
  }

  private publishView(): void {
    const bounds = this.map.getBounds()
    this.element.dataset.bounds = [
      bounds.getSouth(),
      bounds.getWest(),
      bounds.getNorth(),
      bounds.getEast(),
    ].join(',')
  }

  /** Keeps the map filling its box when the layout changes (a phone turned, the side panel grown). */
  resize(): void {
    this.map.invalidateSize()
  }

  showCoverage(geojson: GeoJSON.GeoJsonObject): void {
    this.coverage?.remove()
    this.coverage = L.geoJSON(geojson, {
      interactive: false,
      style: { color: '#1b6e3a', weight: 1.2, dashArray: '4 3', fill: false },
    }).addTo(this.map)
  }

  /** The requested point, and the data point that answered it with the distance between them. */
  showMatch(site: MatchedSite): void {
    this.marks.clearLayers()
    const requested = L.latLng(site.latitude, site.longitude)
    const matched = L.latLng(site.matchedLatitude, site.matchedLongitude)
    L.polyline([requested, matched], { color: '#333', weight: 1.5, dashArray: '3 3' }).addTo(this.marks)
    L.circleMarker(requested, { radius: 4, color: '#333', fillColor: '#fff', fillOpacity: 1, weight: 1.5 })
      .bindTooltip('Requested point')
      .addTo(this.marks)
    L.circleMarker(matched, {
      radius: 7,
      color: '#0b3d1e',
      fillColor: '#1b6e3a',
      fillOpacity: 0.9,
      weight: 2,
      className: 'matched-site',
    })
      .bindTooltip(`Matched site, ${site.matchDistanceKm.toFixed(2)} km away`, {
        permanent: true,
        direction: 'top',
      })
      .addTo(this.marks)
  }

  showPoint(point: Point): void {
    this.marks.clearLayers()
    L.circleMarker([point.latitude, point.longitude], {
      radius: 5,
      color: '#8a1c1c',
      fillColor: '#fff',
      fillOpacity: 1,
      weight: 2,
    }).addTo(this.marks)
  }

  /** The chosen point and its matched site on the map, or (while a stand is planned) out of the way. */
  showPointMarks(on: boolean): void {
    if (on) this.marks.addTo(this.map)
    else this.marks.remove()
  }

  /** Hides the message over the map if it is a hint (info), leaving a warning in place. */
  hideHint(): void {
    if (this.message.dataset.kind !== 'warning') this.say(null)
  }

  /** A plain message over the map; null hides it. */
  say(text: string | null, kind: 'info' | 'warning' = 'info'): void {
    this.message.hidden = text === null
    this.message.textContent = text ?? ''
    this.message.dataset.kind = kind
  }

  /**
   * The survival-map layer: each hexagon coloured by its mean survival or, in change mode, by its
   * change from today on a diverging scale centred on 0 (red where survival falls, blue where it rises).
   */
  showCells(cells: readonly SurvivalCell[], view: CellView): void {
    this.cells?.remove()
    const change = view.mode === 'change'
    const colours = divergingColours(cells.map((cell) => cell.changeFromToday ?? 0))
    const changeFill = divergingColour(colours)
    const fill = (cell: SurvivalCell) =>
      change ? changeFill(cell.changeFromToday ?? 0) : this.colour(cell.meanSurvival)
    this.cells = L.geoJSON(
      {
        type: 'FeatureCollection',
        features: cells.map((cell) => ({
          type: 'Feature',
          properties: cell,
          geometry: { type: 'Polygon', coordinates: [closedRing(cell.boundary)] },
        })),
      } as GeoJSON.FeatureCollection<GeoJSON.Polygon, SurvivalCell>,
      {
        pane: 'cells',
        style: (feature) => {
          const cell = feature?.properties as SurvivalCell
          return {
            color: '#ffffff',
            weight: 0.4,
            fillColor: fill(cell),
            fillOpacity: change ? 0.85 : 0.72,
            className: change ? `survival-cell ${changeClass(cell.changeFromToday ?? 0)}` : 'survival-cell',
          }
        },
        onEachFeature: (feature, layer) => {
          layer.bindTooltip(cellTooltip(feature.properties as SurvivalCell, change), { sticky: true })
        },
      },
    ).addTo(this.map)
    const title = document.createElement('p')
    title.className = 'legend-title'
    title.textContent = view.label
    const parts: Node[] = [title, change ? divergingLegend(colours) : survivalLegend()]
    if (view.note) {
      const note = document.createElement('p')
      note.className = 'legend-note'
      note.textContent = view.note
      parts.push(note)
    }
    this.legend.replaceChildren(...parts)
    this.legend.dataset.scale = change ? 'diverging' : 'sequential'
    this.legend.dataset.domain = (change ? colours.domain : [0, 1]).join(',')
    this.legend.hidden = false
  }

  hideCells(): void {
    this.cells?.remove()
    this.cells = undefined
    this.legend.hidden = true
    this.legend.replaceChildren()
    delete this.legend.dataset.scale
    delete this.legend.dataset.domain
  }

  get container(): HTMLElement {
    return this.element
  }

  /** How tall the legends in the map's lower corner stand: a layer fitted to the map keeps clear of them. */
  get legendsHeight(): number {
    return this.legends.offsetHeight
  }

  /**
   * A file dropped on the map (a GeoJSON stand, or a job's results: the page tells them apart); the map
   * is marked while a file is dragged over it.
   */
  onFileDrop(handle: (file: File) => void): void {
    const hasFiles = (event: DragEvent) => [...(event.dataTransfer?.types ?? [])].includes('Files')
    const target = this.element
    target.addEventListener('dragover', (event) => {
      if (!hasFiles(event)) return
      event.preventDefault()
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy'
      target.classList.add('is-drop-target')
    })
    target.addEventListener('dragleave', (event) => {
      if (!(event.relatedTarget instanceof Node && target.contains(event.relatedTarget)))
        target.classList.remove('is-drop-target')
    })
    target.addEventListener('drop', (event) => {
      target.classList.remove('is-drop-target')
      const file = event.dataTransfer?.files[0]
      if (!file) return
      event.preventDefault()
      handle(file)
    })
  }
}

/** Cells that lose, gain or hold survival: classes for styling and for scripts that read the map. */
function changeClass(change: number): string {
  if (Math.abs(change) < 0.0005) return 'change-none'
  return change < 0 ? 'change-loss' : 'change-gain'
}

function cellTooltip(cell: SurvivalCell, change: boolean): string {
  const spread = `min ${percent(cell.minSurvival)}, max ${percent(cell.maxSurvival)}`
  if (!change || cell.changeFromToday === null)
    return `Mean ${percent(cell.meanSurvival)} (${spread}) over ${cell.sites} sites`
  const today = cell.meanSurvival - cell.changeFromToday
  return `Change ${points(cell.changeFromToday)}: mean ${percent(today)} today → ${percent(cell.meanSurvival)} (${spread}) over ${cell.sites} sites`
}

function closedRing(ring: number[][]): number[][] {
  const first = ring[0]
  const last = ring[ring.length - 1]
  if (!first || !last) return ring
  return first[0] === last[0] && first[1] === last[1] ? ring : [...ring, first]
}
