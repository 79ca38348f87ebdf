import * as crypto from 'node:crypto'
import { describe, expect, it, vi } from 'vitest'
import { generateApiKey, hashApiKey, hashesMatch, isWellFormedApiKey } from '../../src/access/api-key.ts'

// The real comparison, watched: every call still goes to node:crypto.
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>()
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) }
})

/** OWASP API2: how keys are made, stored and compared (src/access/api-key.ts). */
describe('API2: key material', () => {
  it('a key is tsp_live_ + 128 random bits; what is stored is its SHA-256, never the key', () => {
    const keys = Array.from({ length: 200 }, generateApiKey)
    expect(new Set(keys).size).toBe(200)
    for (const key of keys) {
      expect(isWellFormedApiKey(key)).toBe(true)
      const stored = hashApiKey(key)
      expect(stored).toBe(crypto.createHash('sha256').update(key).digest('hex'))
      expect(stored).not.toContain(key.slice('tsp_live_'.length))
    }
  })

  it('stored hashes are compared in constant time (crypto.timingSafeEqual), and only equal ones match', () => {
    const compare = vi.mocked(crypto.timingSafeEqual)
    compare.mockClear()
    const hash = hashApiKey(generateApiKey())
    const differentLast = `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`
    const differentFirst = `${hash.startsWith('0') ? '1' : '0'}${hash.slice(1)}`
    expect(hashesMatch(hash, hash)).toBe(true)
    expect(hashesMatch(hash, differentLast)).toBe(false)
    expect(hashesMatch(hash, differentFirst)).toBe(false)
    expect(compare).toHaveBeenCalledTimes(3)
    // A length mismatch is refused before comparing (timingSafeEqual throws on it); lengths are public.
    expect(hashesMatch(hash, hash.slice(0, 62))).toBe(false)
    expect(hashesMatch(hash, '')).toBe(false)
    expect(compare).toHaveBeenCalledTimes(3)
  })
})
