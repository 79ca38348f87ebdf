import fc from 'fast-check'
import { member } from './stocking-mixes.ts'

// Arbitraries of the stocking-math tests' stands: mixes of species over sites, targets and caps.

/** 1–3 species at 1–6 sites, shares summing to 1, some counting in full, some capped. */
export const mixArbitrary = fc
  .record({
    sites: fc.integer({ min: 1, max: 6 }),
    weights: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 3 }),
  })
  .chain(({ sites, weights }) =>
    fc
      .tuple(
        fc.array(
          fc.array(fc.double({ min: -4, max: 5, noNaN: true }), { minLength: sites, maxLength: sites }),
          {
            minLength: weights.length,
            maxLength: weights.length,
          },
        ),
        fc.array(fc.boolean(), { minLength: weights.length, maxLength: weights.length }),
      )
      .map(([logOdds, full]) => {
        const sum = weights.reduce((a, b) => a + b, 0)
        return weights.map((w, k) => member(logOdds[k] as number[], w / sum, full[k] as boolean))
      }),
  )

export const targetArbitrary = fc.integer({ min: 50, max: 400 })
/** A cap as Oregon's: a share (here 0–60 %) of the target. */
export const capShareArbitrary = fc.double({ min: 0, max: 0.6, noNaN: true })
