import L from 'leaflet'
import type { ResultFeature } from './results-data.ts'

/**
 * How a job's GeoJSON results are drawn: which features are points and which stands, the colour of a
 * point, the style of a stand and a feature's popup (the results panel decides all of them).
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

/**
 * A job's results on the map: drawn on a canvas of their own (tens of thousands of points stay
 * responsive), in the map's 'results' pane above the survival cells; stands under points. One popup, for the feature
 * clicked or found.
 */
export class ResultsLayer {
  /** The layer's legend, stacked above the survival map's in the map's corner. */
  readonly legend: HTMLElement
  private readonly renderer: L.Canvas
  private readonly popup: L.Popup
  private shown: { drawing: ResultsDrawing; stands: L.GeoJSON; points: L.GeoJSON } | null = null
  private selected: ResultLayer | null = null
  private hoverPending = false

  /** `legends`: the box of the map's legends, which the layer is fitted and its popups opened clear of. */
  constructor(
    private readonly map: L.Map,
    private readonly element: HTMLElement,
    private readonly legends: HTMLElement,
  ) {
    this.renderer = L.canvas({ pane: 'results', padding: 0.3, tolerance: 3 })
    this.popup = L.popup({
      minWidth: 230,
      maxWidth: 320,
      autoPanPadding: L.point(12, 12),
      className: 'result-popup',
    })
    map.on('popupclose', (event: L.PopupEvent) => {
      if (event.popup === this.popup) this.unselect()
    })
    this.legend = document.createElement('div')
    this.legend.id = 'results-legend'
    this.legend.className = 'results-legend'
    this.legend.hidden = true
  }

  /**
   * A job's results as a layer: stands filled, points as dots, on the results canvas (the collection is
   * drawn as it is, nothing copied); a click opens the feature's popup. Returns how many features were
   * drawn; fit() then moves the map to them.
   */
  show(drawing: ResultsDrawing): number {
    this.clear()
    // The canvas lets the mouse through (the survival cells under it keep their tooltips): the map's own
    // click and mousemove find the feature under the pointer (resultAt).
    const common = { renderer: this.renderer, interactive: false }
    const collection = drawing.collection as GeoJSON.FeatureCollection<GeoJSON.Geometry | null>
    const stands = L.geoJSON(collection as GeoJSON.GeoJsonObject, {
      ...common,
      filter: (feature) => drawing.kind(feature as ResultFeature) === 'stand',
      style: (feature) => standOptions(drawing, feature as ResultFeature),
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
    this.shown = { drawing, stands, points }
    return stands.getLayers().length + points.getLayers().length
  }

  /** The map around the layer, clear of the legends in its lower corner. */
  fit(): void {
    if (!this.shown) return
    const bounds = this.shown.stands.getBounds().extend(this.shown.points.getBounds())
    if (!bounds.isValid()) return
    const below = this.legends.offsetHeight > 0 ? this.legends.offsetHeight + 36 : 24
    this.map.fitBounds(bounds, {
      paddingTopLeft: L.point(24, 24),
      paddingBottomRight: L.point(24, Math.min(below, this.element.clientHeight / 2)),
      maxZoom: 12,
    })
  }

  /** The colours again (another horizon chosen): the same layers, restyled. */
  restyle(): void {
    const shown = this.shown
    if (!shown) return
    shown.points.eachLayer((layer) => {
      const feature = (layer as ResultLayer).feature
      if (feature) (layer as L.CircleMarker).setStyle({ fillColor: shown.drawing.pointColour(feature) })
    })
    shown.stands.eachLayer((layer) => {
      const feature = (layer as ResultLayer).feature
      if (feature) (layer as L.Path).setStyle(standOptions(shown.drawing, feature))
    })
    if (this.selected) emphasize(this.selected)
  }

  /** A feature of the layer shown on the map, its popup open (found by id from the keyboard). */
  open(feature: ResultFeature): boolean {
    const shown = this.shown
    if (!shown) return false
    let found: ResultLayer | undefined
    for (const group of [shown.points, shown.stands])
      group.eachLayer((layer) => {
        if ((layer as ResultLayer).feature === feature) found = layer as ResultLayer
      })
    if (!found) return false
    if (found instanceof L.CircleMarker)
      this.map.setView(found.getLatLng(), Math.max(this.map.getZoom(), 10), { animate: false })
    else if (found instanceof L.Polygon)
      this.map.fitBounds(found.getBounds(), { padding: [24, 24], maxZoom: 12, animate: false })
    this.select(found, null)
    return true
  }

  clear(): void {
    if (this.map.hasLayer(this.popup)) this.map.closePopup(this.popup)
    this.unselect()
    this.shown?.stands.remove()
    this.shown?.points.remove()
    this.shown = null
    // Its (empty) canvas leaves too.
    this.renderer.remove()
    this.element.classList.remove('is-over-result')
    this.legend.hidden = true
    this.legend.replaceChildren()
  }

  /** Closes a feature's popup (its emphasis goes with it). */
  clearSelection(): void {
    if (this.map.hasLayer(this.popup)) this.map.closePopup(this.popup)
  }

  /** A click on a feature of the layer opens its popup; false when there is none under the pointer. */
  click(event: L.LeafletMouseEvent): boolean {
    const hit = this.resultAt(event)
    if (hit) this.select(hit, event.latlng)
    return hit !== null
  }

  /** The pointer over a feature of the layer: the hand, as over any link. */
  hover(event: L.LeafletMouseEvent): void {
    if (!this.shown || this.hoverPending) return
    this.hoverPending = true
    requestAnimationFrame(() => {
      this.hoverPending = false
      this.element.classList.toggle('is-over-result', this.resultAt(event) !== null)
    })
  }

  private select(layer: ResultLayer, at: L.LatLng | null): void {
    const shown = this.shown
    const feature = layer.feature
    if (!shown || !feature) return
    this.unselect()
    this.selected = layer
    emphasize(layer)
    const where =
      layer instanceof L.CircleMarker
        ? layer.getLatLng()
        : (at ?? (layer instanceof L.Polygon ? layer.getCenter() : this.map.getCenter()))
    // The popup opens clear of the legends in the lower corner (the map pans): tall enough to read,
    // short enough to fit above them on a phone's map.
    const legends = this.legends.offsetHeight > 0 ? this.legends.offsetHeight + 36 : 12
    this.popup.options.autoPanPaddingBottomRight = L.point(12, legends)
    this.popup.options.maxHeight = Math.max(100, Math.min(300, this.element.clientHeight - legends - 90))
    this.popup.setLatLng(where).setContent(shown.drawing.popup(feature)).openOn(this.map)
  }

  private unselect(): void {
    const layer = this.selected
    const shown = this.shown
    this.selected = null
    if (!layer?.feature || !shown) return
    if (layer instanceof L.CircleMarker)
      layer.setStyle({ weight: RESULT_POINT.weight, color: RESULT_POINT.color })
    else layer.setStyle(standOptions(shown.drawing, layer.feature))
  }

  /**
   * The feature under a pointer: the last point drawn there, else the last stand, by the hit test
   * Leaflet's canvas renderer itself uses (a point within its radius and a few pixels, inside a stand).
   */
  private resultAt(event: L.LeafletMouseEvent): ResultLayer | null {
    const shown = this.shown
    if (!shown) return null
    const at = event.layerPoint
    let hit: ResultLayer | null = null
    const test = (layer: L.Layer) => {
      if ((layer as ResultLayer & HitTestable)._containsPoint(at)) hit = layer as ResultLayer
    }
    shown.points.eachLayer(test)
    if (!hit) shown.stands.eachLayer(test)
    return hit
  }
}

function standOptions(drawing: ResultsDrawing, feature: ResultFeature): L.PathOptions {
  const style = drawing.standStyle(feature)
  return {
    ...RESULT_STAND,
    color: style.line,
    fillColor: style.fill,
    // Leaflet keeps a dash pattern unless it is replaced: none is an empty one.
    dashArray: style.dashArray ?? '',
  }
}

/** The selected feature stands out: a thicker, darker outline. */
function emphasize(layer: ResultLayer): void {
  if (layer instanceof L.CircleMarker) layer.setStyle({ weight: 3, color: '#000000' })
  else layer.setStyle({ weight: 4 })
}
