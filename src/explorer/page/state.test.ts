import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CELL_SIZES_KM,
  DEFAULT_STATE,
  FUTURE_PERIODS,
  HORIZONS,
  MAP_MODES,
  METHODS,
  mapModeUnder,
  PANELS,
  parseViewState,
  roundCoordinate,
  SCENARIOS,
  serializeViewState,
  type ViewState,
} from './state.ts'

const viewState: fc.Arbitrary<ViewState> = fc
  .record({
    species: fc.stringMatching(/^[A-Z]{4}$/),
    method: fc.constantFrom(...METHODS),
    horizon: fc.constantFrom(...HORIZONS),
    climate: fc.option(
      fc.record({ period: fc.constantFrom(...FUTURE_PERIODS), scenario: fc.constantFrom(...SCENARIOS) }),
    ),
    model: fc.option(
      fc.oneof(
        fc.constantFrom('0.2', '0.1'),
        fc.stringMatching(/^[0-9a-f]{8}$/).map((hex) => `0.2+cal.${hex}`),
      ),
    ),
    point: fc.option(
      fc.record({
        latitude: fc.double({ min: -90, max: 90, noNaN: true }).map(roundCoordinate),
        longitude: fc.double({ min: -180, max: 180, noNaN: true }).map(roundCoordinate),
      }),
    ),
    panel: fc.constantFrom(...PANELS),
    mapCellKm: fc.option(fc.constantFrom(...CELL_SIZES_KM)),
    mapMode: fc.constantFrom(...MAP_MODES),
  })
  // The change map exists only under a future climate.
  .map((state) => ({ ...state, mapMode: mapModeUnder(state.climate, state.mapMode) }))

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

  it('keeps a future climate with its scenario, and writes nothing for today', () => {
    expect(parseViewState('?period=2041-2070&scenario=ssp585').climate).toEqual({
      period: '2041-2070',
      scenario: 'ssp585',
    })
    // A future period never goes without a scenario: a missing or unknown one is ssp245.
    expect(parseViewState('?period=2071-2100').climate).toEqual({ period: '2071-2100', scenario: 'ssp245' })
    expect(parseViewState('?period=2011-2040&scenario=rcp85').climate?.scenario).toBe('ssp245')
    // Today's period, a scenario alone, or an unknown period: today.
    for (const search of [
      '?period=1991_2020',
      '?period=1991_2020&scenario=ssp585',
      '?scenario=ssp370',
      '?period=2100',
    ])
      expect(parseViewState(search).climate).toBeNull()
    expect(serializeViewState(DEFAULT_STATE)).toBe('?species=PSME&method=manual&horizon=5&panel=compare')
    expect(
      serializeViewState({ ...DEFAULT_STATE, climate: { period: '2041-2070', scenario: 'ssp370' } }),
    ).toBe('?species=PSME&method=manual&horizon=5&period=2041-2070&scenario=ssp370&panel=compare')
  })

  it('keeps a model version, its + written %2B, and writes nothing for the account default', () => {
    const calibrated = { ...DEFAULT_STATE, model: '0.2+cal.3f9a1c2e' }
    expect(serializeViewState(calibrated)).toBe(
      '?species=PSME&method=manual&horizon=5&model=0.2%2Bcal.3f9a1c2e&panel=compare',
    )
    expect(parseViewState('?model=0.2%2Bcal.3f9a1c2e').model).toBe('0.2+cal.3f9a1c2e')
    // A + typed as it is reads as a space: the version meant.
    expect(parseViewState('?model=0.2+cal.3f9a1c2e').model).toBe('0.2+cal.3f9a1c2e')
    expect(parseViewState('?model=0.2').model).toBe('0.2')
    for (const search of ['?model=', '?model=%3Cscript%3E', `?model=${'9'.repeat(65)}`, '?model=.2'])
      expect(parseViewState(search).model, search).toBeNull()
    expect(serializeViewState(DEFAULT_STATE)).not.toContain('model')
  })

  it('maps the change from today only under a future climate', () => {
    expect(parseViewState('?period=2041-2070&map=25&mapMode=change').mapMode).toBe('change')
    expect(parseViewState('?map=25&mapMode=change').mapMode).toBe('survival')
    expect(parseViewState('?period=2041-2070&mapMode=sideways').mapMode).toBe('survival')
    expect(serializeViewState({ ...DEFAULT_STATE, mapCellKm: 25, mapMode: 'change' })).toBe(
      '?species=PSME&method=manual&horizon=5&panel=compare&map=25',
    )
  })
})
