import { describe, expect, it } from 'vitest'
import { ByteBoundedCache } from './byte-bounded-cache.ts'

const bytes = (value: string) => value.length

describe('ByteBoundedCache', () => {
  it('keeps the total under its budget, dropping the least recently used first', () => {
    const cache = new ByteBoundedCache<string, string>(10, bytes)
    cache.set('a', 'aaaa')
    cache.set('b', 'bbbb')
    expect(cache.get('a')).toBe('aaaa') // a is now the most recent
    cache.set('c', 'cccc')
    expect(cache.has('b')).toBe(false)
    expect([cache.has('a'), cache.has('c')]).toEqual([true, true])
    expect(cache.bytes).toBe(8)
  })

  it('drops as many entries as a large one needs, and keeps none larger than the budget', () => {
    const cache = new ByteBoundedCache<string, string>(10, bytes)
    for (const key of ['a', 'b', 'c', 'd', 'e']) cache.set(key, key.repeat(2))
    cache.set('big', 'x'.repeat(9))
    expect([cache.size, cache.bytes, cache.get('big')]).toEqual([1, 9, 'x'.repeat(9)])
    cache.set('huge', 'y'.repeat(11))
    expect([cache.has('huge'), cache.has('big')]).toEqual([false, true])
  })

  it('replacing an entry counts its new size once; deleting gives its bytes back', () => {
    const cache = new ByteBoundedCache<string, string>(10, bytes)
    cache.set('a', 'aaaa')
    cache.set('a', 'aaaaaa')
    expect(cache.bytes).toBe(6)
    expect(cache.delete('a')).toBe(true)
    expect(cache.delete('a')).toBe(false)
    expect([cache.size, cache.bytes]).toEqual([0, 0])
  })

  it('deletes the entries a predicate picks', () => {
    const cache = new ByteBoundedCache<string, string>(100, bytes)
    for (const key of ['r1|a', 'r1|b', 'r2|a']) cache.set(key, key)
    cache.deleteWhere((key) => !key.startsWith('r2|'))
    expect([cache.has('r1|a'), cache.has('r1|b'), cache.has('r2|a'), cache.bytes]).toEqual([
      false,
      false,
      true,
      4,
    ])
  })
})
