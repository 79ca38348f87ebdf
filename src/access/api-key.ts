import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

const API_KEY_PREFIX = 'tsp_live_'
const API_KEY_PATTERN = /^tsp_live_[0-9a-f]{32}$/

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(16).toString('hex')
}

export function generateKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`
}

export function isWellFormedApiKey(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate)
}

/**
 * SHA-256 of the whole key. A key carries 128 random bits, so a fast hash is enough: there is nothing
 * to brute-force that a slow password hash would protect.
 */
export function hashApiKey(key: string): string {
  // One-shot: no Hash object per request.
  return hash('sha256', key, 'hex')
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
