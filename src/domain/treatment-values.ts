/* The establishment treatments a request may name (docs/treatments.md), each with its values. */

export const VEGETATION_CONTROL = [
  'none',
  'site_prep',
  'release_1yr',
  'release_2yr',
  'site_prep_release_1yr',
  'site_prep_release_2yr',
] as const
export const ANIMAL_PROTECTION = ['none', 'mesh_tubes'] as const
export const STOCK_TYPES = ['bareroot', 'container'] as const
export const SHADE = ['none', 'shade_cards'] as const

/** The treatments by their API names, each with the values it takes. */
export const TREATMENT_VALUES = {
  vegetation_control: VEGETATION_CONTROL,
  animal_protection: ANIMAL_PROTECTION,
  stock_type: STOCK_TYPES,
  shade: SHADE,
} as const
export type TreatmentName = keyof typeof TREATMENT_VALUES
export const TREATMENT_NAMES = Object.keys(TREATMENT_VALUES) as TreatmentName[]

/** Treatments as asked for (domain names), each checked for its type by the input rules. */
export interface TreatmentsRequest {
  vegetationControl?: string | null
  animalProtection?: string | null
  stockType?: string | null
  shade?: string | null
}
