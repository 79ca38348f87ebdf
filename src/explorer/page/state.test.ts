import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CELL_SIZES_KM,
  DEFAULT_STATE,
  HORIZONS,
  METHODS,
  PANELS,
  parseViewState,
  roundCoordinate,
  serializeViewState,
  type ViewState,
} from './state.ts'

const viewState: fc.Arbitrary<ViewState> = fc.record({
  species: fc.stringMatching(/^[A-Z]{4}$/),
  method: fc.constantFrom(...METHODS),
  horizon: fc.constantFrom(...HORIZONS),
  point: fc.option(
    fc.record({
      latitude: fc.double({ min: -90, max: 90, noNaN: true }).map(roundCoordinate),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }).map(roundCoordinate),
    }),
  ),
  panel: fc.constantFrom(...PANELS),
  mapCellKm: fc.option(fc.constantFrom(...CELL_SIZES_KM)),
})

describe('view state in the URL', () => {
  it('reads back every view it writes', () => {
    fc.assert(
      fc.property(viewState, (state) => {
        const read = parseViewState(serializeViewState(state))
        expect(read).toEqual({
          ...state,
          // -0 is written as "0"
          point: state.point && { latitude: state.point.latitude + 0, longitude: state.point.longitude + 0 },
        })
      }),
    )
  })

  it('falls back to the default for anything missing or malformed, never throwing', () => {
    expect(parseViewState('')).toEqual(DEFAULT_STATE)
    expect(parseViewState('?species=<script>&method=helicopter&horizon=4&lat=91&lng=-123&panel=x')).toEqual(
      DEFAULT_STATE,
    )
    fc.assert(
      fc.property(fc.string(), (search) => {
        const state = parseViewState(search)
        expect(METHODS).toContain(state.method)
        expect(HORIZONS).toContain(state.horizon)
        expect(state.species).toMatch(/^[A-Z]{2,8}$/)
      }),
    )
  })

  it('keeps a point only when both coordinates are valid, rounded to five decimals', () => {
    expect(parseViewState('?lat=44.6&lng=-123.6').point).toEqual({ latitude: 44.6, longitude: -123.6 })
    expect(parseViewState('?lat=44.6').point).toBeNull()
    expect(parseViewState('?lat=&lng=-123.6').point).toBeNull()
    expect(
      serializeViewState({ ...DEFAULT_STATE, point: { latitude: 44.1234567, longitude: -123.9876543 } }),
    ).toBe('?species=PSME&method=manual&horizon=5&lat=44.12346&lng=-123.98765&panel=compare')
  })

  it('shows the survival map only when asked, at a listed cell size', () => {
    expect(parseViewState('?map=10').mapCellKm).toBe(10)
    expect(parseViewState('?map=7').mapCellKm).toBe(25)
    expect(parseViewState('?panel=ranking').mapCellKm).toBeNull()
  })
})
