import L from 'leaflet'
import { stateOutlines } from './basemap.ts'
import {
  changeColour,
  changeColours,
  changeLegend,
  percent,
  points,
  survivalColour,
  survivalLegend,
} from './charts.ts'
import type { ResultFeature } from './results-data.ts'
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

/** A stand drawn on the map, vertex by vertex: what the page hears of it. */
export interface StandSketch {
  /** The vertices so far changed (added, undone). */
  onChange(vertices: number): void
  /** The ring was closed (a double-click, a click on the first vertex, or finish()): its vertices, open. */
  onClose(vertices: Point[]): void
}

/** Clicks closer than this (in pixels) to the last vertex add none: a double-click's two clicks are one. */
const SAME_VERTEX_PX = 6
/** A click this close (in pixels) to the first vertex closes the ring. */
const CLOSE_RING_PX = 10
/** Fewest vertices of a stand's ring. */
export const MIN_STAND_VERTICES = 3

/**
 * How the results layer draws a job's GeoJSON results: which features are points and which stands, the
 * colour of a point, the style of a stand and a feature's popup (results-layer.ts decides all of them).
 */
export interface ResultsDrawing {
  collection: GeoJSON.FeatureCollection
  kind(feature: ResultFeature): 'point' | 'stand' | 'failed' | 'other'
  pointColour(feature: ResultFeature): string
  standStyle(feature: ResultFeature): { fill: string; line: string; dashArray: string | null }
  popup(feature: ResultFeature): HTMLElement
}

/** A point of the results layer: radius and outline (its fill is its survival class). */
const RESULT_POINT = { radius: 6, weight: 1, color: '#263238', fillOpacity: 1 } as const
const RESULT_STAND = { weight: 2, fillOpacity: 0.45 } as const

type ResultLayer = L.Path & { feature?: ResultFeature }
/** Leaflet's own hit test of a path (in layer pixels), which its canvas renderer uses for clicks. */
type HitTestable = { _containsPoint(point: L.Point): boolean }

export interface MatchedSite {
  latitude: number
  longitude: number
  matchedLatitude: number
  matchedLongitude: number
  matchDistanceKm: number
}

/**
 * The map: state outlines, the API's coverage, the chosen point and the site that answered it,
 * the survival-map layer with its legend, and plain messages (outside coverage, no data nearby).
 */
export class ExplorerMap {
  private readonly map: L.Map
  private readonly marks = L.layerGroup()
  private coverage: L.GeoJSON | undefined
  private cells: L.GeoJSON | undefined
  private readonly colour = survivalColour()
  /** A plan's stand and the data sites it was evaluated at; the stand being drawn, apart. */
  private readonly stand = L.layerGroup()
  private readonly sketchLayer = L.layerGroup()
  private sketch: { vertices: L.LatLng[]; listener: StandSketch; cursor: L.LatLng | null } | null = null
  private readonly crosshair: HTMLElement
  /**
   * A job's results: drawn on a canvas of their own (tens of thousands of points stay responsive), in a
   * pane above the survival cells; stands under points. One popup, for the feature clicked or found.
   */
  private readonly resultsRenderer: L.Canvas
  private results: { drawing: ResultsDrawing; stands: L.GeoJSON; points: L.GeoJSON } | null = null
  private readonly resultPopup: L.Popup
  private selected: ResultLayer | null = null
  private hoverPending = false
  /** The results layer's legend, stacked above the survival map's in the map's corner. */
  readonly resultsLegend: HTMLElement
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
    // Panes, bottom up: the state outlines (the base map), the survival cells, then outlines and marks.
    this.map.createPane('base').style.zIndex = '250'
    this.map.createPane('cells').style.zIndex = '390'
    this.map.createPane('results').style.zIndex = '395'
    this.resultsRenderer = L.canvas({ pane: 'results', padding: 0.3, tolerance: 3 })
    this.resultPopup = L.popup({
      minWidth: 230,
      maxWidth: 320,
      autoPanPadding: L.point(12, 12),
      className: 'result-popup',
    })
    this.map.on('popupclose', (event: L.PopupEvent) => {
      if (event.popup === this.resultPopup) this.unselectResult()
    })
    this.legends = document.createElement('div')
    this.legends.className = 'map-legends'
    legend.before(this.legends)
    this.resultsLegend = document.createElement('div')
    this.resultsLegend.id = 'results-legend'
    this.resultsLegend.className = 'results-legend'
    this.resultsLegend.hidden = true
    this.legends.append(this.resultsLegend, legend)
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
    this.stand.addTo(this.map)
    this.sketchLayer.addTo(this.map)
    // The centre of the map, shown while a stand is drawn: "Add map centre" puts a vertex there.
    this.crosshair = document.createElement('div')
    this.crosshair.className = 'map-crosshair'
    this.crosshair.hidden = true
    this.crosshair.setAttribute('aria-hidden', 'true')
    element.append(this.crosshair)
    // The view in the page, for scripts that drive it (and its browser test): south,west,north,east.
    this.map.on('moveend zoomend resize', () => this.publishView())
    this.map.fitBounds(REGION)
    this.publishView()
    this.map.on('click', (event: L.LeafletMouseEvent) => {
      if (this.sketch) this.clickVertex(event.latlng)
      else if (!this.clickResult(event)) onPick({ latitude: event.latlng.lat, longitude: event.latlng.lng })
    })
    this.map.on('dblclick', () => {
      if (this.sketch) this.finishSketch()
    })
    this.map.on('mousemove', (event: L.LeafletMouseEvent) => {
      if (!this.sketch) return this.hoverResult(event)
      this.sketch.cursor = event.latlng
      this.drawSketch()
    })
    this.map.on('mouseout', () => {
      if (!this.sketch) return
      this.sketch.cursor = null
      this.drawSketch()
    })
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

  clearPoint(): void {
    this.marks.clearLayers()
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
    const colours = changeColours(cells.map((cell) => cell.changeFromToday ?? 0))
    const changeFill = changeColour(colours)
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
    const parts: Node[] = [title, change ? changeLegend(colours) : survivalLegend()]
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

  // ----- stands -----

  /** A plan's stand, outlined; `fit` moves the map to it (a stand loaded from a file may be anywhere). */
  showStand(geometry: GeoJSON.Polygon | GeoJSON.MultiPolygon, fit: boolean): void {
    this.stand.clearLayers()
    const outline = L.geoJSON(geometry, {
      interactive: false,
      style: {
        color: '#5b2a86',
        weight: 2.5,
        fillColor: '#7b4bb0',
        fillOpacity: 0.14,
        className: 'stand-outline',
      },
    }).addTo(this.stand)
    const bounds = outline.getBounds()
    if (fit && bounds.isValid()) this.map.fitBounds(bounds, { padding: [24, 24], maxZoom: 12 })
  }

  /** The data sites a stand plan was evaluated at (the stand stays). */
  showStandSites(sites: readonly { latitude: number; longitude: number; siteId: number }[]): void {
    this.stand.eachLayer((layer) => {
      if (layer instanceof L.CircleMarker) this.stand.removeLayer(layer)
    })
    for (const site of sites)
      L.circleMarker([site.latitude, site.longitude], {
        radius: 4,
        color: '#2d0f4a',
        fillColor: '#f0e6fa',
        fillOpacity: 1,
        weight: 1.5,
        className: 'stand-site',
      })
        .bindTooltip(`Data site ${site.siteId}`)
        .addTo(this.stand)
  }

  clearStand(): void {
    this.stand.clearLayers()
  }

  /** Whether map clicks add vertices of a stand instead of choosing a point. */
  get drawing(): boolean {
    return this.sketch !== null
  }

  /** Map clicks add vertices from now on; a double-click no longer zooms. */
  startSketch(listener: StandSketch): void {
    this.sketch = { vertices: [], listener, cursor: null }
    this.map.doubleClickZoom.disable()
    this.element.classList.add('is-drawing')
    this.crosshair.hidden = false
    this.drawSketch()
    listener.onChange(0)
  }

  /** A vertex at the centre of the map: drawing without a pointer (pan with the arrow keys). */
  addCentreVertex(): void {
    if (this.sketch) this.addVertex(this.map.getCenter())
  }

  undoVertex(): void {
    if (!this.sketch) return
    this.sketch.vertices.pop()
    this.drawSketch()
    this.sketch.listener.onChange(this.sketch.vertices.length)
  }

  /** Closes the ring, when it has vertices enough; false (and drawing goes on) when it has not. */
  finishSketch(): boolean {
    const sketch = this.sketch
    if (!sketch || sketch.vertices.length < MIN_STAND_VERTICES) return false
    const vertices = sketch.vertices.map((v) => ({ latitude: v.lat, longitude: v.lng }))
    this.stopSketch()
    sketch.listener.onClose(vertices)
    return true
  }

  /** Stops drawing, dropping what was drawn. */
  stopSketch(): void {
    if (!this.sketch) return
    this.sketch = null
    this.sketchLayer.clearLayers()
    this.map.doubleClickZoom.enable()
    this.element.classList.remove('is-drawing')
    this.crosshair.hidden = true
  }

  private clickVertex(at: L.LatLng): void {
    const sketch = this.sketch
    if (!sketch) return
    const point = this.map.latLngToContainerPoint(at)
    const first = sketch.vertices[0]
    const last = sketch.vertices[sketch.vertices.length - 1]
    if (last && this.map.latLngToContainerPoint(last).distanceTo(point) < SAME_VERTEX_PX) return
    if (
      first &&
      sketch.vertices.length >= MIN_STAND_VERTICES &&
      this.map.latLngToContainerPoint(first).distanceTo(point) < CLOSE_RING_PX
    ) {
      this.finishSketch()
      return
    }
    this.addVertex(at)
  }

  private addVertex(at: L.LatLng): void {
    if (!this.sketch) return
    this.sketch.vertices.push(at)
    this.drawSketch()
    this.sketch.listener.onChange(this.sketch.vertices.length)
  }

  private drawSketch(): void {
    this.sketchLayer.clearLayers()
    const sketch = this.sketch
    if (!sketch) return
    const { vertices, cursor } = sketch
    const style = { color: '#5b2a86', weight: 2, dashArray: '5 4', interactive: false }
    if (vertices.length >= MIN_STAND_VERTICES)
      L.polygon(vertices, { ...style, weight: 0, fillColor: '#7b4bb0', fillOpacity: 0.12 }).addTo(
        this.sketchLayer,
      )
    const path = cursor && vertices.length > 0 ? [...vertices, cursor] : vertices
    if (path.length > 1) L.polyline(path, { ...style, className: 'stand-sketch' }).addTo(this.sketchLayer)
    vertices.forEach((vertex, i) => {
      L.circleMarker(vertex, {
        radius: i === 0 ? 6 : 4,
        color: '#5b2a86',
        fillColor: i === 0 ? '#f0e6fa' : '#5b2a86',
        fillOpacity: 1,
        weight: 2,
        interactive: false,
        className: i === 0 ? 'stand-vertex stand-vertex-first' : 'stand-vertex',
      }).addTo(this.sketchLayer)
    })
  }

  // ----- a job's results -----

  /**
   * A job's results as a layer: stands filled, points as dots, on the results canvas (the collection is
   * drawn as it is, nothing copied); a click opens the feature's popup. Returns how many features were
   * drawn; fitResults() then moves the map to them.
   */
  showResults(drawing: ResultsDrawing): number {
    this.clearResults()
    // The canvas lets the mouse through (the survival cells under it keep their tooltips): the map's own
    // click and mousemove find the feature under the pointer (resultAt).
    const common = { renderer: this.resultsRenderer, interactive: false }
    const collection = drawing.collection as GeoJSON.FeatureCollection<GeoJSON.Geometry | null>
    const stands = L.geoJSON(collection as GeoJSON.GeoJsonObject, {
      ...common,
      filter: (feature) => drawing.kind(feature as ResultFeature) === 'stand',
      style: (feature) => this.standOptions(drawing, feature as ResultFeature),
    })
    const points = L.geoJSON(collection as GeoJSON.GeoJsonObject, {
      ...common,
      filter: (feature) => drawing.kind(feature as ResultFeature) === 'point',
      pointToLayer: (feature, latlng) =>
        L.circleMarker(latlng, {
          ...common,
          ...RESULT_POINT,
          fillColor: drawing.pointColour(feature as ResultFeature),
        }),
    })
    stands.addTo(this.map)
    points.addTo(this.map)
    this.results = { drawing, stands, points }
    return stands.getLayers().length + points.getLayers().length
  }

  /** The map around the results layer, clear of the legends in its lower corner. */
  fitResults(): void {
    if (!this.results) return
    const bounds = this.results.stands.getBounds().extend(this.results.points.getBounds())
    if (!bounds.isValid()) return
    const below = this.legends.offsetHeight > 0 ? this.legends.offsetHeight + 36 : 24
    this.map.fitBounds(bounds, {
      paddingTopLeft: L.point(24, 24),
      paddingBottomRight: L.point(24, Math.min(below, this.element.clientHeight / 2)),
      maxZoom: 12,
    })
  }

  /** The colours again (another horizon chosen): the same layers, restyled. */
  restyleResults(): void {
    const results = this.results
    if (!results) return
    results.points.eachLayer((layer) => {
      const feature = (layer as ResultLayer).feature
      if (feature) (layer as L.CircleMarker).setStyle({ fillColor: results.drawing.pointColour(feature) })
    })
    results.stands.eachLayer((layer) => {
      const feature = (layer as ResultLayer).feature
      if (feature) (layer as L.Path).setStyle(this.standOptions(results.drawing, feature))
    })
    if (this.selected) this.emphasize(this.selected)
  }

  /** A feature of the layer shown on the map, its popup open (found by id from the keyboard). */
  openResult(feature: ResultFeature): boolean {
    const results = this.results
    if (!results) return false
    let found: ResultLayer | undefined
    for (const group of [results.points, results.stands])
      group.eachLayer((layer) => {
        if ((layer as ResultLayer).feature === feature) found = layer as ResultLayer
      })
    if (!found) return false
    if (found instanceof L.CircleMarker)
      this.map.setView(found.getLatLng(), Math.max(this.map.getZoom(), 10), { animate: false })
    else if (found instanceof L.Polygon)
      this.map.fitBounds(found.getBounds(), { padding: [24, 24], maxZoom: 12, animate: false })
    this.selectResult(found, null)
    return true
  }

  clearResults(): void {
    if (this.map.hasLayer(this.resultPopup)) this.map.closePopup(this.resultPopup)
    this.unselectResult()
    this.results?.stands.remove()
    this.results?.points.remove()
    this.results = null
    // Its (empty) canvas leaves too.
    this.resultsRenderer.remove()
    this.element.classList.remove('is-over-result')
    this.resultsLegend.hidden = true
    this.resultsLegend.replaceChildren()
  }

  /** Closes a feature's popup (its emphasis goes with it). */
  clearSelection(): void {
    if (this.map.hasLayer(this.resultPopup)) this.map.closePopup(this.resultPopup)
  }

  get hasResults(): boolean {
    return this.results !== null
  }

  private standOptions(drawing: ResultsDrawing, feature: ResultFeature): L.PathOptions {
    const style = drawing.standStyle(feature)
    return {
      ...RESULT_STAND,
      color: style.line,
      fillColor: style.fill,
      // Leaflet keeps a dash pattern unless it is replaced: none is an empty one.
      dashArray: style.dashArray ?? '',
    }
  }

  private selectResult(layer: ResultLayer, at: L.LatLng | null): void {
    const results = this.results
    const feature = layer.feature
    if (!results || !feature) return
    this.unselectResult()
    this.selected = layer
    this.emphasize(layer)
    const where =
      layer instanceof L.CircleMarker
        ? layer.getLatLng()
        : (at ?? (layer instanceof L.Polygon ? layer.getCenter() : this.map.getCenter()))
    // The popup opens clear of the legends in the lower corner (the map pans): tall enough to read,
    // short enough to fit above them on a phone's map.
    const legends = this.legends.offsetHeight > 0 ? this.legends.offsetHeight + 36 : 12
    this.resultPopup.options.autoPanPaddingBottomRight = L.point(12, legends)
    this.resultPopup.options.maxHeight = Math.max(
      100,
      Math.min(300, this.element.clientHeight - legends - 90),
    )
    this.resultPopup.setLatLng(where).setContent(results.drawing.popup(feature)).openOn(this.map)
  }

  /** The selected feature stands out: a thicker, darker outline. */
  private emphasize(layer: ResultLayer): void {
    if (layer instanceof L.CircleMarker) layer.setStyle({ weight: 3, color: '#000000' })
    else layer.setStyle({ weight: 4 })
  }

  private unselectResult(): void {
    const layer = this.selected
    const results = this.results
    this.selected = null
    if (!layer?.feature || !results) return
    if (layer instanceof L.CircleMarker)
      layer.setStyle({ weight: RESULT_POINT.weight, color: RESULT_POINT.color })
    else layer.setStyle(this.standOptions(results.drawing, layer.feature))
  }

  /**
   * The feature under a pointer: the last point drawn there, else the last stand, by the hit test
   * Leaflet's canvas renderer itself uses (a point within its radius and a few pixels, inside a stand).
   */
  private resultAt(event: L.LeafletMouseEvent): ResultLayer | null {
    const results = this.results
    if (!results) return null
    const at = event.layerPoint
    let hit: ResultLayer | null = null
    const test = (layer: L.Layer) => {
      if ((layer as ResultLayer & HitTestable)._containsPoint(at)) hit = layer as ResultLayer
    }
    results.points.eachLayer(test)
    if (!hit) results.stands.eachLayer(test)
    return hit
  }

  /** A click on a feature of the results opens its popup (and chooses no planting point). */
  private clickResult(event: L.LeafletMouseEvent): boolean {
    const hit = this.resultAt(event)
    if (hit) this.selectResult(hit, event.latlng)
    return hit !== null
  }

  /** The pointer over a feature of the results: the hand, as over any link. */
  private hoverResult(event: L.LeafletMouseEvent): void {
    if (!this.results || this.hoverPending) return
    this.hoverPending = true
    requestAnimationFrame(() => {
      this.hoverPending = false
      this.element.classList.toggle('is-over-result', this.resultAt(event) !== null)
    })
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
