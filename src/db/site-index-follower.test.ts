import { describe, expect, it } from 'vitest'
import { NearestSiteIndexBuilder } from '../geo/nearest-site-index.ts'
import { nearestIdsInMemory, SiteIndexFollower } from './site-index-follower.ts'
import type { RevisionIndex } from './site-index-read.ts'

function indexOf(revision: string, sites: [number, number, number][]): RevisionIndex {
  const builder = new NearestSiteIndexBuilder(sites.length)
  for (const [id, latitude, longitude] of sites) builder.add(id, latitude, longitude)
  return { revision, dataVersion: `sites_${revision.padStart(12, '0')}`, index: builder.finish() }
}

/** A source whose revision is set by the test and whose reads finish when the test says. */
function controlledSource() {
  const source = {
    revisionNow: '1',
    reads: [] as { resolve: (read: RevisionIndex) => void; reject: (error: Error) => void }[],
    revision: async () => source.revisionNow,
    read: () =>
      new Promise<RevisionIndex>((resolve, reject) => {
        source.reads.push({ resolve, reject })
      }),
  }
  return source
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('SiteIndexFollower', () => {
  it('lets the index go at the first poll that sees another revision, and holds the new one once read', async () => {
    const source = controlledSource()
    const follower = new SiteIndexFollower(source)
    await follower.check()
    expect(follower.current()).toBeNull()
    source.reads[0]?.resolve(indexOf('1', [[7, 45, -122]]))
    await settle()
    expect(follower.current()?.revision).toBe('1')
    await follower.check()
    expect(source.reads).toHaveLength(1)

    source.revisionNow = '2'
    await follower.check()
    expect(follower.current()).toBeNull()
    source.reads[1]?.resolve(indexOf('2', [[8, 46, -121]]))
    await settle()
    expect(
      nearestIdsInMemory(follower.current() as RevisionIndex, [{ latitude: 46, longitude: -121 }], 5),
    ).toEqual({
      revision: '2',
      dataVersion: 'sites_000000000002',
      nearest: [{ siteId: 8, distanceKm: 0 }],
    })
  })

  it('keeps no index read of a revision the table has left meanwhile, and reads again', async () => {
    const source = controlledSource()
    const follower = new SiteIndexFollower(source)
    await follower.check()
    source.revisionNow = '2'
    await follower.check()
    source.reads[0]?.resolve(indexOf('1', []))
    await settle()
    expect(follower.current()).toBeNull()
    await follower.check()
    source.reads[1]?.resolve(indexOf('2', []))
    await settle()
    expect(follower.current()?.revision).toBe('2')
  })

  it('reports a failed read once per failure and tries again at the next poll; stopped, it holds nothing', async () => {
    const source = controlledSource()
    const failures: unknown[] = []
    const follower = new SiteIndexFollower(source, { failed: (error) => failures.push(error) })
    await follower.check()
    source.reads[0]?.reject(new Error('connection refused'))
    await settle()
    expect(failures).toEqual([new Error('connection refused')])
    await follower.check()
    source.reads[1]?.resolve(indexOf('1', []))
    await settle()
    expect(follower.current()?.revision).toBe('1')
    follower.stop()
    expect(follower.current()).toBeNull()
    await follower.check()
    expect(source.reads).toHaveLength(2)
  })

  it('answers no site beyond the radius, and refuses a coordinate that is not a number', () => {
    const held = indexOf('1', [[7, 45, -122]])
    expect(nearestIdsInMemory(held, [{ latitude: 45.5, longitude: -122 }], 10).nearest).toEqual([null])
    expect(() =>
      nearestIdsInMemory(held, [{ latitude: 45, longitude: Number.POSITIVE_INFINITY }], 10),
    ).toThrow(/coordinate Infinity is not a finite number/)
  })
})
