import { describe, expect, it } from 'vitest'
import { LruCache } from './lru-cache.ts'

describe('LruCache', () => {
  it('holds at most its capacity, dropping the least recently used', () => {
    const cache = new LruCache<string, number>(2)
    cache.set('a', 1)
    cache.set('b', 2)
    expect(cache.get('a')).toBe(1) // a is now the most recent
    cache.set('c', 3)
    expect(cache.size).toBe(2)
    expect(cache.has('b')).toBe(false)
    expect(cache.get('a')).toBe(1)
    expect(cache.get('c')).toBe(3)
  })

  it('counts a read as a use once full; before that, nothing is dropped and an entry counts from when it was added', () => {
    const cache = new LruCache<string, number>(3)
    cache.set('a', 1)
    cache.set('b', 2)
    expect(cache.get('a')).toBe(1) // room left: not moved
    cache.set('c', 3)
    expect(cache.get('b')).toBe(2) // full: b is now the most recent
    cache.set('d', 4)
    expect(cache.has('a')).toBe(false)
    cache.set('e', 5)
    expect(cache.has('c')).toBe(false)
    expect([cache.has('b'), cache.has('d'), cache.has('e')]).toEqual([true, true, true])
  })

  it('replacing an entry does not grow it', () => {
    const cache = new LruCache<string, number>(2)
    cache.set('a', 1)
    cache.set('a', 2)
    cache.set('b', 3)
    expect(cache.size).toBe(2)
    expect(cache.get('a')).toBe(2)
  })

  it('tells of each entry dropped to make room, not of those deleted or replaced', () => {
    const evicted: [string, number][] = []
    const cache = new LruCache<string, number>(2, (key, value) => evicted.push([key, value]))
    cache.set('a', 1)
    cache.set('b', 2)
    cache.set('b', 3)
    expect(cache.delete('a')).toBe(true)
    expect(cache.delete('a')).toBe(false)
    cache.set('c', 4)
    expect(evicted).toEqual([])
    cache.set('d', 5)
    expect(evicted).toEqual([['b', 3]])
    expect(cache.size).toBe(2)
  })

  it('needs room for one entry', () => {
    expect(() => new LruCache(0)).toThrow(RangeError)
  })
})
