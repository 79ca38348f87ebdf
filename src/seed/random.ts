import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64'
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus'

/** Fixed seed of the synthetic site data set; changing it changes every site. */
export const SITE_SEED = 0x5eed_2024

export type RandomSource = () => number

/** Uniform [0, 1) numbers from xoroshiro128+; identical sequence on every machine. */
export function createRandom(seed: number): RandomSource {
  const rng = xoroshiro128plus(seed)
  return () => uniformFloat64(rng)
}
