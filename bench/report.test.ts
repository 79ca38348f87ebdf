import { describe, expect, it } from 'vitest'
import { pairedRpsRatio } from './report.ts'
import type { RunFigures } from './runner.ts'

const run = (rps: number): RunFigures => ({
  rps,
  p50: 1,
  p90: 1,
  p99: 1,
  mean: 1,
  requests: rps * 8,
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  rssMaxMb: 100,
  cpuUs: null,
  idlePct: 0,
  repeated: false,
})

describe('pairedRpsRatio', () => {
  it('is the median of each round’s ratio, not the ratio of the medians', () => {
    // The machine slows in rounds 2 and 3 for both arms alike; round 4 is one arm's bad luck.
    const of = [6000, 4200, 4100, 4000, 6100].map(run)
    const to = [6200, 4300, 4250, 6000, 6250].map(run)
    // The ratio of the medians would set 4,200 against 6,000: 0.70×.
    expect(pairedRpsRatio(of, to)).toBe(0.968)
  })

  it('is NaN when the arms ran a different number of rounds, or none', () => {
    expect(pairedRpsRatio([run(1)], [run(1), run(2)])).toBeNaN()
    expect(pairedRpsRatio([], [])).toBeNaN()
  })
})
