/**
 * H3 hexagons (Uber's hierarchical grid, h3-js) for the survival map: which resolution a requested cell
 * size means, which cell a point falls in, and a cell's centre and outline.
 *
 * h3-js is loaded by `loadHexagons()`, not at start: importing it reserves a 32 MB emscripten heap, about
 * 8 MB of it resident, which a server that never draws a map should not carry. The functions below need
 * it loaded first.
 */

type H3 = typeof import('h3-js')

/** H3 resolutions, coarsest (0: ~2,100 km across) to finest (15: ~1 m). */
const RESOLUTIONS = Array.from({ length: 16 }, (_, resolution) => resolution)

let h3: H3 | undefined
/** √(average hexagon area) per resolution, km: the "size" of a cell at that resolution. */
let cellSizesKm: number[] = []
let loading: Promise<void> | undefined

/** Loads h3-js once; every call after the first resolves at once. */
export function loadHexagons(): Promise<void> {
  loading ??= import('h3-js').then((module) => {
    cellSizesKm = RESOLUTIONS.map((resolution) =>
      Math.sqrt(module.getHexagonAreaAvg(resolution, module.UNITS.km2)),
    )
    h3 = module
  })
  return loading
}

function loaded(): H3 {
  if (!h3) throw new Error('h3-js is not loaded: await loadHexagons() first')
  return h3
}

/** The size, km, of an average cell at `resolution`: √ of its average area. */
export function cellSizeKm(resolution: number): number {
  loaded()
  const size = cellSizesKm[resolution]
  if (size === undefined) throw new RangeError(`H3 resolution ${resolution} is not 0–15`)
  return size
}

/**
 * The resolution whose average hexagon's size (√ of its average area) is nearest `cellKm` by ratio:
 * neighbouring resolutions differ by a factor of about √7 in size, so the switch happens at their
 * geometric mean: up to 25.9 km → resolution 5 (√area 15.9 km), up to 68.4 km → 4 (42.1 km), up to
 * 181 km → 3 (111 km), above → 2 (295 km); below 9.8 km it would be 6 (6.0 km).
 */
export function resolutionForCellKm(cellKm: number): number {
  if (!(cellKm > 0) || !Number.isFinite(cellKm))
    throw new RangeError(`cell size ${cellKm} km must be positive`)
  let best = 0
  for (const resolution of RESOLUTIONS) {
    const distance = Math.abs(Math.log(cellSizeKm(resolution) / cellKm))
    if (distance < Math.abs(Math.log(cellSizeKm(best) / cellKm))) best = resolution
  }
  return best
}

/** The H3 index (15 hex digits) of the cell at `resolution` holding the point. */
export function cellOf(latitude: number, longitude: number, resolution: number): string {
  return loaded().latLngToCell(latitude, longitude, resolution)
}

/** A cell's centre, decimal degrees. */
export function cellCentre(cell: string): { latitude: number; longitude: number } {
  const [latitude, longitude] = loaded().cellToLatLng(cell)
  return { latitude, longitude }
}

/** A cell's outline as a closed GeoJSON ring: [longitude, latitude] pairs, the first repeated last. */
export function cellBoundary(cell: string): [number, number][] {
  return loaded().cellToBoundary(cell, true) as [number, number][]
}
