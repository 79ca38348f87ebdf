import { describe, expect, it } from 'vitest'
import { CallWindows } from './survival-map-throttle.ts'

const identity = { contextIdentity: 'key_0123456789abcdef', fieldIdentity: 'survivalMap' }

describe('CallWindows (the throttle’s store)', () => {
  it('keeps call times per caller and field', () => {
    const store = new CallWindows()
    store.setForIdentity(identity, [1, 2, 3])
    expect(store.getForIdentity(identity)).toEqual([1, 2, 3])
    expect(store.getForIdentity({ ...identity, contextIdentity: 'other' })).toEqual([])
    store.setForIdentity(identity, [])
    expect(store.getForIdentity(identity)).toEqual([])
  })

  it('the wait is until the oldest call that keeps the caller at the limit leaves the window', () => {
    const store = new CallWindows()
    const window = 60_000
    store.setForIdentity(identity, [1_000, 5_000, 9_000])
    expect(store.waitMs(identity, 4, window, 10_000)).toBe(0)
    expect(store.waitMs(identity, 3, window, 10_000)).toBe(51_000)
    expect(store.waitMs(identity, 2, window, 10_000)).toBe(55_000)
    // Calls older than the window do not count.
    expect(store.waitMs(identity, 3, window, 61_500)).toBe(0)
  })
})
