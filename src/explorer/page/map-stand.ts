import L from 'leaflet'
import type { Point } from './state.ts'

/** A stand drawn on the map, vertex by vertex: what the page hears of it. */
export interface StandSketch {
  /** The vertices so far changed (added, undone). */
  onChange(vertices: number): void
  /** The ring was closed (a double-click, a click on the first vertex, or finishSketch()): its vertices, open. */
  onClose(vertices: Point[]): void
}

/** Clicks closer than this (in pixels) to the last vertex add none: a double-click's two clicks are one. */
const SAME_VERTEX_PX = 6
/** A click this close (in pixels) to the first vertex closes the ring. */
const CLOSE_RING_PX = 10
/** Fewest vertices of a stand's ring. */
export const MIN_STAND_VERTICES = 3

const STAND_COLOUR = '#5b2a86'
const STAND_FILL = '#7b4bb0'

/**
 * The Plan tab's stand on the map: its outline with the data sites a plan evaluated, and the stand
 * being drawn (while it is, map clicks add vertices and a crosshair marks the map's centre).
 */
export class StandLayer {
  /** A plan's stand and the data sites it was evaluated at; the stand being drawn, apart. */
  private readonly stand = L.layerGroup()
  private readonly sketchLayer = L.layerGroup()
  private sketch: { vertices: L.LatLng[]; listener: StandSketch; cursor: L.LatLng | null } | null = null
  private readonly crosshair: HTMLElement

  constructor(
    private readonly map: L.Map,
    private readonly element: HTMLElement,
  ) {
    this.stand.addTo(map)
    this.sketchLayer.addTo(map)
    // "Add map centre" puts a vertex under the crosshair.
    this.crosshair = document.createElement('div')
    this.crosshair.className = 'map-crosshair'
    this.crosshair.hidden = true
    this.crosshair.setAttribute('aria-hidden', 'true')
    element.append(this.crosshair)
  }

  /** A plan's stand, outlined; `fit` moves the map to it (a stand loaded from a file may be anywhere). */
  show(geometry: GeoJSON.Polygon | GeoJSON.MultiPolygon, fit: boolean): void {
    this.stand.clearLayers()
    const outline = L.geoJSON(geometry, {
      interactive: false,
      style: {
        color: STAND_COLOUR,
        weight: 2.5,
        fillColor: STAND_FILL,
        fillOpacity: 0.14,
        className: 'stand-outline',
      },
    }).addTo(this.stand)
    const bounds = outline.getBounds()
    if (fit && bounds.isValid()) this.map.fitBounds(bounds, { padding: [24, 24], maxZoom: 12 })
  }

  /** The data sites a stand plan was evaluated at (the stand stays). */
  showSites(sites: readonly { latitude: number; longitude: number; siteId: number }[]): void {
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

  clear(): void {
    this.stand.clearLayers()
  }

  /** Whether map clicks add vertices of a stand instead of choosing a point. */
  get drawing(): boolean {
    return this.sketch !== null
  }

  /** Map clicks add vertices from now on; a double-click does not zoom while they do. */
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

  /** A click on the map while drawing: a vertex, or (on the first vertex) the ring closed. */
  click(at: L.LatLng): void {
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

  /** The pointer over the map while drawing (null: it left): the next edge follows it. */
  pointerAt(at: L.LatLng | null): void {
    if (!this.sketch) return
    this.sketch.cursor = at
    this.drawSketch()
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
    const style = { color: STAND_COLOUR, weight: 2, dashArray: '5 4', interactive: false }
    if (vertices.length >= MIN_STAND_VERTICES)
      L.polygon(vertices, { ...style, weight: 0, fillColor: STAND_FILL, fillOpacity: 0.12 }).addTo(
        this.sketchLayer,
      )
    const path = cursor && vertices.length > 0 ? [...vertices, cursor] : vertices
    if (path.length > 1) L.polyline(path, { ...style, className: 'stand-sketch' }).addTo(this.sketchLayer)
    vertices.forEach((vertex, i) => {
      L.circleMarker(vertex, {
        radius: i === 0 ? 6 : 4,
        color: STAND_COLOUR,
        fillColor: i === 0 ? '#f0e6fa' : STAND_COLOUR,
        fillOpacity: 1,
        weight: 2,
        interactive: false,
        className: i === 0 ? 'stand-vertex stand-vertex-first' : 'stand-vertex',
      }).addTo(this.sketchLayer)
    })
  }
}
