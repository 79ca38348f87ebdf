import { describe, expect, it } from 'vitest'
import { chosenLaneIds, positiveSetting } from './soak-settings.ts'

describe('the soak settings', () => {
  it('take a positive whole number, or the default when unset or empty', () => {
    expect(positiveSetting({}, 'BENCH_SOAK_SECONDS', 600)).toBe(600)
    expect(positiveSetting({ BENCH_SOAK_SECONDS: '' }, 'BENCH_SOAK_SECONDS', 600)).toBe(600)
    expect(positiveSetting({ BENCH_SOAK_SECONDS: '90' }, 'BENCH_SOAK_SECONDS', 600)).toBe(90)
  })

  it('refuse anything else, naming the setting', () => {
    for (const bad of ['0', '-5', '1.5', 'ten', '1e400'])
      expect(() => positiveSetting({ BENCH_SOAK_SECONDS: bad }, 'BENCH_SOAK_SECONDS', 600)).toThrow(
        `BENCH_SOAK_SECONDS must be a positive whole number, not "${bad}"`,
      )
  })

  const lanes = ['predict', 'map', 'jobs']

  it('run every lane unless some are named', () => {
    expect(chosenLaneIds(lanes, undefined)).toEqual(lanes)
    expect(chosenLaneIds(lanes, ' , ')).toEqual(lanes)
    expect(chosenLaneIds(lanes, 'jobs, map')).toEqual(['map', 'jobs'])
  })

  it('refuse a lane that does not exist, listing the ones that do', () => {
    expect(() => chosenLaneIds(lanes, 'map,maps')).toThrow(
      'BENCH_SOAK_LANES: no lane maps (lanes: predict, map, jobs)',
    )
  })
})
