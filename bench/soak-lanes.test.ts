import { describe, expect, it } from 'vitest'
import { SoakClient } from './soak-client.ts'
import { SOAK_LANE_IDS, type SoakContext, soakLanes } from './soak-lanes.ts'

describe('the soak lanes', () => {
  it('are exactly the ids BENCH_SOAK_LANES is checked against, each once', () => {
    const job = { path: '/nonexistent', rows: 1, outside: 0 }
    const ctx: SoakContext = {
      url: 'http://127.0.0.1:9',
      client: new SoakClient(new URL('http://127.0.0.1:9')),
      key: 'k',
      rotatingKey: 'r',
      metricsToken: 't',
      sites: [{ latitude: 44, longitude: -123 }],
      jobFiles: { csv: job, points: job, stands: job },
    }
    // Building the lanes sends nothing: each call is made by a lane's step.
    const ids = soakLanes(ctx, []).map((lane) => lane.id)
    expect(ids).toEqual([...SOAK_LANE_IDS])
  })
})
