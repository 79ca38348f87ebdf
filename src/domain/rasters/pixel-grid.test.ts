import { describe, expect, it } from 'vitest'
import { columnCentre, gridOverBox, rowCentre } from './pixel-grid.ts'

describe('gridOverBox', () => {
  it('snaps the box outward to whole multiples of the resolution, written as decimals', () => {
    const grid = gridOverBox([-124.73364, 41.99162, -116.46391, 49.00241], 0.01)
    expect(grid).toEqual({ west: -124.74, north: 49.01, width: 828, height: 702, resolution: 0.01 })
    expect(gridOverBox([-124.73364, 41.99162, -116.46391, 49.00241], 0.005)).toEqual({
      west: -124.735,
      north: 49.005,
      width: 1655,
      height: 1403,
      resolution: 0.005,
    })
  })

  it('covers the whole box at any resolution', () => {
    const box = [-124.73364, 41.99162, -116.46391, 49.00241] as const
    for (const resolution of [0.005, 0.007, 0.01, 0.0125, 0.03, 0.1, 0.37, 0.5]) {
      const grid = gridOverBox(box, resolution)
      expect(grid.west, String(resolution)).toBeLessThanOrEqual(box[0])
      expect(grid.north).toBeGreaterThanOrEqual(box[3])
      expect(grid.west + grid.width * resolution).toBeGreaterThanOrEqual(box[2] - 1e-9)
      expect(grid.north - grid.height * resolution).toBeLessThanOrEqual(box[1] + 1e-9)
      // Not a pixel more than the box needs on either side.
      expect(grid.west + resolution).toBeGreaterThan(box[0])
      expect(grid.north - resolution).toBeLessThan(box[3])
    }
  })

  it('puts pixel centres half a pixel in from the edges', () => {
    const grid = gridOverBox([-124.73364, 41.99162, -116.46391, 49.00241], 0.01)
    expect(columnCentre(grid, 0)).toBeCloseTo(-124.735, 12)
    expect(rowCentre(grid, 0)).toBeCloseTo(49.005, 12)
    expect(rowCentre(grid, grid.height - 1)).toBeCloseTo(41.995, 12)
  })
})
