import { isInCoverage } from '../../src/geo/coverage.ts'
import type { Site } from '../../src/types.ts'

/**
 * `count` distinct points inside the coverage: each synthetic site moved by up to 8 × n steps of 1e-4
 * degree, skipping a moved point that leaves the coverage (at the coast).
 */
export function* manySites(base: readonly Site[], count: number): Generator<Site> {
  let made = 0
  for (let i = 0; made < count; i++) {
    const site = base[i % base.length] as Site
    const step = Math.floor(i / base.length)
    const latitude = Math.round((site.latitude + (step % 8) * 1e-4) * 1e5) / 1e5
    const longitude = Math.round((site.longitude + Math.floor(step / 8) * 1e-4) * 1e5) / 1e5
    if (!isInCoverage(latitude, longitude)) continue
    made += 1
    yield { ...site, id: made, latitude, longitude }
  }
}
