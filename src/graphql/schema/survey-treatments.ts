import type { PlotTreatments } from '../../domain/ports/surveys.ts'
import { fieldsOfTreatments } from '../../domain/treatment-fields.ts'
import type { TreatmentsRequest } from '../../domain/treatment-values.ts'
import { builder } from './builder.ts'
import { AnimalProtectionEnum, ShadeEnum, StockTypeEnum, VegetationControlEnum } from './treatments.ts'

/*
 * A surveyed plot's treatments (docs/surveys.md): read with TreatmentsInput, shown as kept. The plot
 * keeps them under their API names; GraphQL shows each under its enum.
 */

type Value<E> = E extends { $inferType: infer T } ? T : never

export const PlotTreatmentsRef = builder.objectRef<PlotTreatments>('PlotTreatments').implement({
  description: 'The establishment treatments a plot had, as sent; a treatment not named is null',
  fields: (t) => ({
    vegetationControl: t.field({
      type: VegetationControlEnum,
      nullable: true,
      description: 'Vegetation control',
      resolve: (p) => (p.vegetation_control ?? null) as Value<typeof VegetationControlEnum> | null,
    }),
    animalProtection: t.field({
      type: AnimalProtectionEnum,
      nullable: true,
      description: 'Animal protection',
      resolve: (p) => (p.animal_protection ?? null) as Value<typeof AnimalProtectionEnum> | null,
    }),
    stockType: t.field({
      type: StockTypeEnum,
      nullable: true,
      description: 'Stock type',
      resolve: (p) => (p.stock_type ?? null) as Value<typeof StockTypeEnum> | null,
    }),
    shade: t.field({
      type: ShadeEnum,
      nullable: true,
      description: 'Shade',
      resolve: (p) => (p.shade ?? null) as Value<typeof ShadeEnum> | null,
    }),
  }),
})

/** A plot input's TreatmentsInput under the contract's names, for the one plot reader; null stays null. */
export function plotTreatmentsFields(
  treatments: TreatmentsRequest | null | undefined,
): Record<string, string> | null | undefined {
  return treatments ? fieldsOfTreatments(treatments) : treatments
}
