import type { Load, PredictBody, Scenario } from './scenario-types.ts'

/** What a planted seedling can take: every treatment, each at its fullest value. */
const MANUAL_TREATMENTS = {
  vegetation_control: 'site_prep_release_2yr',
  animal_protection: 'mesh_tubes',
  stock_type: 'container',
  shade: 'shade_cards',
} as const
/** Drone seeding takes vegetation control only (docs/treatments.md#drone-seeding). */
const DRONE_TREATMENTS = { vegetation_control: 'site_prep_release_2yr' } as const

export const TREATED_SCENARIO = 'rest_predict_treated'

/**
 * The plain load's bodies (`bodies`, in its order) with treatments: every answer must carry its
 * `treatments` block. The survival differs by design, so only the answers' shapes are compared.
 */
function withTreatments(plain: Load, bodies: readonly PredictBody[]): Load {
  return {
    ...plain,
    bodies: bodies.map((body) =>
      JSON.stringify({
        ...body,
        treatments: body.planting_method === 'manual' ? MANUAL_TREATMENTS : DRONE_TREATMENTS,
      }),
    ),
    check: (status, body) => {
      const problem = plain.check(status, body)
      if (problem) return problem
      return (body as { treatments?: unknown } | null)?.treatments
        ? null
        : `no treatments in status ${status}: ${JSON.stringify(body).slice(0, 300)}`
    },
  }
}

/**
 * REST predict with treatments against the same bodies without, taking turns on one process (#46's
 * target: a treated predict keeps ≥ 0.95× the rps of an untreated one).
 */
export function treatedScenario(plain: Load, bodies: readonly PredictBody[]): Scenario {
  return {
    id: TREATED_SCENARIO,
    title: `REST POST /v1/predict with every treatment a method takes vs without (${bodies.length.toLocaleString('en-US')} points)`,
    connections: 32,
    arms: [
      { process: 'server', load: plain },
      { process: 'server', variant: 'treated', load: withTreatments(plain, bodies) },
    ],
    comparisons: [{ of: 'server:treated', to: 'server', sameFields: false }],
  }
}
