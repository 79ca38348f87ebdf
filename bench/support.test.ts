import { describe, expect, it } from 'vitest'
import { pairedRpsRatio } from './support.ts'

const rounds = (...rps: number[]) => rps.map((value) => ({ rps: value }))

describe('pairedRpsRatio', () => {
  it('is the median of each round’s ratio, not the ratio of the medians', () => {
    // The machine slows in rounds 2 and 3 for both arms alike; round 4 is one arm's bad luck. The ratio
    // of the medians would set 4,200 against 6,000: 0.70×.
    const of = rounds(6000, 4200, 4100, 4000, 6100)
    const to = rounds(6200, 4300, 4250, 6000, 6250)
    expect(pairedRpsRatio(of, to)).toBeCloseTo(0.968, 3)
  })

  it('is NaN when the arms ran a different number of rounds, or none', () => {
    expect(pairedRpsRatio(rounds(1), rounds(1, 2))).toBeNaN()
    expect(pairedRpsRatio([], [])).toBeNaN()
  })
})
