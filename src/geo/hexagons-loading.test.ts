import { describe, expect, it } from 'vitest'
import { cellOf, cellSizeKm, loadHexagons } from './hexagons.ts'

// A file of its own: the module must not have been loaded by another test first.
describe('loadHexagons', () => {
  it('is needed before any cell is worked out, and loads h3-js once', async () => {
    expect(() => cellOf(45.5, -122.6, 5)).toThrow(/loadHexagons/)
    expect(() => cellSizeKm(5)).toThrow(/loadHexagons/)
    const first = loadHexagons()
    expect(loadHexagons()).toBe(first)
    await first
    expect(cellOf(45.5, -122.6, 5)).toMatch(/^85[0-9a-f]{13}$/)
    expect(cellSizeKm(5)).toBeCloseTo(15.9, 0)
  })
})
