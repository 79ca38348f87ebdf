import { element } from './dom.ts'
import { PANELS, type Panel } from './state.ts'

/**
 * The tabs over the panels: a click opens one; the arrow keys move to the next or the previous tab
 * (around), Home and End to the ends.
 */
export class Tabs {
  constructor(open: (panel: Panel) => void) {
    for (const panel of PANELS) {
      const tab = element(`tab-${panel}`)
      tab.addEventListener('click', () => open(panel))
      tab.addEventListener('keydown', (event) => {
        const at = PANELS.indexOf(panel)
        const to: Record<string, number> = {
          ArrowRight: (at + 1) % PANELS.length,
          ArrowLeft: (at - 1 + PANELS.length) % PANELS.length,
          Home: 0,
          End: PANELS.length - 1,
        }
        const index = to[event.key]
        if (index === undefined) return
        event.preventDefault()
        const next = PANELS[index] as Panel
        open(next)
        element(`tab-${next}`).focus()
      })
    }
  }

  /** The open panel's tab selected (and the one the Tab key reaches), the other panels hidden. */
  reflect(open: Panel): void {
    for (const panel of PANELS) {
      const selected = panel === open
      element(`tab-${panel}`).setAttribute('aria-selected', String(selected))
      element(`tab-${panel}`).tabIndex = selected ? 0 : -1
      element(`panel-${panel}`).hidden = !selected
    }
  }
}
