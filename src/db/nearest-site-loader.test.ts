import { describe, expect, it } from 'vitest'
import type { Coordinates, NearestSite } from '../types.ts'
import { createNearestSiteLoader } from './nearest-site-loader.ts'

function recordingFinder() {
  const calls: Coordinates[][] = []
  const find = async (points: readonly Coordinates[]) => {
    calls.push([...points])
    return points.map((point) => ({ site: point, distanceKm: 0 }) as unknown as NearestSite)
  }
  return { calls, find }
}

describe('createNearestSiteLoader', () => {
  it('answers lookups made in the same tick, from different callers, with one call', async () => {
    const { calls, find } = recordingFinder()
    const lookup = createNearestSiteLoader(find)
    const points = [
      { latitude: 44.6, longitude: -123.6 },
      { latitude: 44.2, longitude: -122.2 },
      { latitude: 44.0, longitude: -121.6 },
    ]
    const found = await Promise.all(points.map((point) => lookup.one(point)))
    expect(calls).toEqual([points])
    expect(found.map((answer) => answer?.site.latitude)).toEqual([44.6, 44.2, 44.0])
  })

  it('sends each distinct point once and gives every caller its answer', async () => {
    const { calls, find } = recordingFinder()
    const lookup = createNearestSiteLoader(find)
    const a = { latitude: 44.6, longitude: -123.6 }
    const b = { latitude: 44.2, longitude: -122.2 }
    const found = await Promise.all([a, b, { ...a }, a].map((point) => lookup.one(point)))
    expect(calls).toEqual([[a, b]])
    expect(found.map((answer) => answer?.site.longitude)).toEqual([-123.6, -122.2, -123.6, -123.6])
  })

  it('tells apart points on one latitude, and keeps repeats of each together', async () => {
    const { calls, find } = recordingFinder()
    const lookup = createNearestSiteLoader(find)
    const a = { latitude: 44, longitude: -123 }
    const b = { latitude: 44, longitude: -122 }
    const c = { latitude: 44, longitude: -121 }
    const found = await lookup.many([
      a,
      b,
      { ...b },
      c,
      { ...a },
      { latitude: -0, longitude: -121 },
      { ...c },
    ])
    expect(calls).toEqual([[a, b, c, { latitude: -0, longitude: -121 }]])
    expect(found.map((answer) => answer?.site.longitude)).toEqual([-123, -122, -122, -121, -123, -121, -121])
  })

  it('caches nothing between ticks and splits at the batch size', async () => {
    const { calls, find } = recordingFinder()
    const lookup = createNearestSiteLoader(find, 2)
    const point = { latitude: 44.6, longitude: -123.6 }
    await lookup.one(point)
    await lookup.one(point)
    expect(calls).toHaveLength(2)
    await Promise.all([1, 2, 3].map((i) => lookup.one({ latitude: 44 + i / 10, longitude: -123 })))
    expect(calls.slice(2).map((call) => call.length)).toEqual([2, 1])
  })

  it('looks up a batch with one call per batch size, deduplicated, in order, with the tick’s other lookups', async () => {
    const { calls, find } = recordingFinder()
    const lookup = createNearestSiteLoader(find, 2)
    const a = { latitude: 44.6, longitude: -123.6 }
    const b = { latitude: 44.2, longitude: -122.2 }
    const c = { latitude: 44.0, longitude: -121.6 }
    const found = await lookup.many([a, b, c, a])
    expect(calls).toEqual([
      [a, b],
      [c, a],
    ])
    expect(found.map((answer) => answer?.site.latitude)).toEqual([44.6, 44.2, 44.0, 44.6])
    expect(await lookup.many([a, a])).toHaveLength(2)
    expect(calls.at(-1)).toEqual([a])
    await Promise.all([lookup.one(c), lookup.many([b])])
    expect(calls.at(-1)).toEqual([c, b])
  })

  it('sends a long list (64 points or more) as statements of its own, split at the batch size, in order', async () => {
    const { calls, find } = recordingFinder()
    const lookup = createNearestSiteLoader(find, 50)
    const points = Array.from({ length: 70 }, (_, i) => ({ latitude: 44 + (i % 60) / 100, longitude: -123 }))
    const [found, single] = await Promise.all([
      lookup.many(points),
      lookup.one({ latitude: 45.5, longitude: -122 }),
    ])
    expect(found.map((answer) => answer?.site.latitude)).toEqual(points.map((point) => point.latitude))
    expect(single?.site.latitude).toBe(45.5)
    // 50 then 20 (repeats are found within a statement, not across), and the tick's single lookup apart.
    expect(calls.map((call) => call.length).sort((x, y) => x - y)).toEqual([1, 20, 50])
  })

  it('rejects every waiting caller when the store fails', async () => {
    const lookup = createNearestSiteLoader(async () => {
      throw new Error('connection refused')
    })
    const results = await Promise.allSettled([
      lookup.one({ latitude: 44, longitude: -123 }),
      lookup.one({ latitude: 45, longitude: -123 }),
    ])
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected'])
  })
})
