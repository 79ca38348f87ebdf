import fc from 'fast-check'
import { cellToParent, getResolution, isValidCell } from 'h3-js'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  cellBoundary,
  cellCentre,
  cellOf,
  cellSizeKm,
  loadHexagons,
  resolutionForCellKm,
} from './hexagons.ts'

beforeAll(loadHexagons)

describe('resolutionForCellKm', () => {
  it.each([
    [10, 5],
    [15.9, 5],
    [25, 5],
    [26, 4],
    [42, 4],
    [68, 4],
    [69, 3],
    [111, 3],
    [181, 3],
    [182, 2],
    [200, 2],
  ])('%d km → resolution %d', (km, resolution) => {
    expect(resolutionForCellKm(km)).toBe(resolution)
  })

  it('picks the resolution whose √(average area) is nearest by ratio, and coarser for larger cells', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1000, noNaN: true }),
        fc.double({ min: 1, max: 1000, noNaN: true }),
        (a, b) => {
          const chosen = resolutionForCellKm(a)
          const ratio = (resolution: number) => Math.abs(Math.log(cellSizeKm(resolution) / a))
          for (let resolution = 0; resolution <= 15; resolution++) {
            expect(ratio(chosen)).toBeLessThanOrEqual(ratio(resolution))
          }
          if (a <= b) expect(resolutionForCellKm(a)).toBeGreaterThanOrEqual(resolutionForCellKm(b))
        },
      ),
    )
  })

  it('refuses a size that is not positive', () => {
    expect(() => resolutionForCellKm(0)).toThrow(RangeError)
    expect(() => resolutionForCellKm(Number.NaN)).toThrow(RangeError)
  })
})

describe('cells', () => {
  it('a point’s cell at a resolution, nested in its coarser cells', () => {
    const cell = cellOf(44.6, -123.6, 5)
    expect(isValidCell(cell)).toBe(true)
    expect(getResolution(cell)).toBe(5)
    expect(cellToParent(cell, 3)).toBe(cellOf(44.6, -123.6, 3))
  })

  it('boundary: a closed ring of [longitude, latitude] pairs around the centre', () => {
    const cell = cellOf(44.6, -123.6, 4)
    const ring = cellBoundary(cell)
    const centre = cellCentre(cell)
    expect(ring).toHaveLength(7)
    expect(ring.at(-1)).toEqual(ring[0])
    for (const [longitude, latitude] of ring) {
      expect(Math.abs(longitude - centre.longitude)).toBeLessThan(1)
      expect(Math.abs(latitude - centre.latitude)).toBeLessThan(1)
      expect(longitude).toBeLessThan(-120)
      expect(latitude).toBeGreaterThan(40)
    }
    expect(cellOf(centre.latitude, centre.longitude, 4)).toBe(cell)
  })
})
