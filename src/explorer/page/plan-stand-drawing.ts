import { elementIn } from './dom.ts'
import type { ExplorerMap } from './map.ts'
import { MIN_STAND_VERTICES } from './map-stand.ts'
import { polygonOfVertices } from './plan-stand.ts'

/** What drawing a stand does to the rest of the Plan tab. */
export interface StandDrawingHooks {
  /** Drawing is about to start: the form's problem cleared, the stand chosen to plan for. */
  starting(): void
  /** Drawing started or ended: the summary of what the plan is for says so. */
  changed(): void
  /** The ring was closed: the stand drawn. */
  drawn(geometry: GeoJSON.Polygon): void
  /** Drawing was given up: the stand before comes back. */
  abandoned(): void
}

/** Drawing a stand on the map from the Plan tab: its buttons, its status line and its keys on the map. */
export class StandDrawing {
  private vertexCount = 0

  constructor(
    private readonly panel: HTMLElement,
    private readonly map: ExplorerMap,
    private readonly hooks: StandDrawingHooks,
  ) {
    this.el('plan-draw').addEventListener('click', () => this.start())
    this.el('plan-finish').addEventListener('click', () => this.finish())
    this.el('plan-undo').addEventListener('click', () => this.map.stand.undoVertex())
    this.el('plan-add-centre').addEventListener('click', () => this.map.stand.addCentreVertex())
    this.el('plan-cancel').addEventListener('click', () => this.cancel(true))
    // While drawing: Escape gives up, Enter closes the ring (on the map, which keeps the arrow keys).
    this.map.container.addEventListener('keydown', (event) => {
      if (!this.map.stand.drawing) return
      if (event.key === 'Escape') {
        event.preventDefault()
        this.cancel(true)
      } else if (event.key === 'Enter') {
        event.preventDefault()
        this.finish()
      }
    })
  }

  private el<T extends HTMLElement>(id: string): T {
    return elementIn<T>(this.panel, id, 'the plan panel')
  }

  start(): void {
    this.hooks.starting()
    this.map.stand.clear()
    this.map.stand.startSketch({
      onChange: (count) => {
        this.vertexCount = count
        this.status(count, false)
      },
      onClose: (vertices) => {
        this.shown(false)
        this.hooks.changed()
        this.map.say(null)
        this.hooks.drawn(polygonOfVertices(vertices))
      },
    })
    this.shown(true)
    this.hooks.changed()
    this.map.say(
      'Drawing a stand: click the map to add its vertices; double-click, or click the first vertex, to close it.',
    )
    // On a phone the map is above the panel: brought into view, to be drawn on.
    const map = this.map.container.getBoundingClientRect()
    if (map.top < 0 || map.bottom > window.innerHeight) this.map.container.scrollIntoView({ block: 'start' })
    this.el('plan-finish').focus({ preventScroll: true })
  }

  /** Closes the stand drawn, or says it needs more vertices. */
  finish(): void {
    if (!this.map.stand.finishSketch()) this.status(this.vertexCount, true)
  }

  /** Gives up drawing (the stand before comes back); `focus`: the user did, and goes back to Draw. */
  cancel(focus = false): void {
    if (!this.map.stand.drawing) return
    this.map.stand.stopSketch()
    this.map.say(null)
    this.shown(false)
    this.hooks.changed()
    this.hooks.abandoned()
    if (focus) this.el('plan-draw').focus({ preventScroll: true })
  }

  private shown(on: boolean): void {
    this.el('plan-drawing').hidden = !on
    this.el<HTMLButtonElement>('plan-draw').disabled = on
  }

  private status(count: number, tooFew: boolean): void {
    const more = MIN_STAND_VERTICES - count
    this.el('plan-drawing-status').textContent =
      `${count} ${count === 1 ? 'vertex' : 'vertices'}. ` +
      (more > 0
        ? `${tooFew ? 'A stand needs at least 3: add' : 'Add'} ${more} more, then close the stand.`
        : 'Double-click the map, click the first vertex, or press “Close stand” (Enter on the map) to close it.')
    this.el<HTMLButtonElement>('plan-finish').disabled = count < MIN_STAND_VERTICES
    this.el<HTMLButtonElement>('plan-undo').disabled = count === 0
  }
}
