import type { TreatmentCatalogueEffect } from '../../domain/treatment-types.ts'
import { TREATMENT_NAMES, TREATMENT_VALUES } from '../../domain/treatment-values.ts'
import { builder } from './builder.ts'
import { EffectReadingRef, EvidenceStatusEnum } from './treatments.ts'

/* Every treatment and effect, as GET /v1/treatments lists them (docs/treatments.md#the-catalogue). */

interface TreatmentChoice {
  name: string
  values: readonly string[]
}

const TreatmentChoiceRef = builder.objectRef<TreatmentChoice>('TreatmentChoice').implement({
  description: 'A treatment a request may name, with its values',
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'vegetation_control, animal_protection, stock_type or shade',
    }),
    values: t.exposeStringList('values', { description: 'Its values, none first where it has one' }),
  }),
})

type DroneSeeding = TreatmentCatalogueEffect['droneSeeding']

const DroneSeedingEffectRef = builder.objectRef<DroneSeeding>('DroneSeedingEffect').implement({
  description: 'Whether an effect applies to drone seeding, with its status there, or why not',
  fields: (t) => ({
    applies: t.exposeBoolean('applies', { description: 'Whether a drone-seeding request may name it' }),
    status: t.field({
      type: EvidenceStatusEnum,
      nullable: true,
      description: 'Its status for drone seeding; null where it does not apply',
      resolve: (d) => (d.applies ? d.status : null),
    }),
    note: t.string({
      nullable: true,
      description: 'How it is read for drone seeding; null where it does not apply',
      resolve: (d) => (d.applies ? d.note : null),
    }),
    reason: t.string({
      nullable: true,
      description: 'Why it does not apply; null where it does',
      resolve: (d) => (d.applies ? null : d.reason),
    }),
  }),
})

const CatalogueEffectRef = builder.objectRef<TreatmentCatalogueEffect>('TreatmentCatalogueEffect').implement({
  description: 'One effect of the treatments data: what it is, how the model reads it, and what it rests on',
  interfaces: [EffectReadingRef],
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Its id, as answers name it (TreatmentEffect.effectId)' }),
    treatment: t.exposeString('treatment', { description: 'The treatment it belongs to' }),
    values: t.exposeStringList('values', { description: 'The treatment’s values it covers' }),
    figureHorizonYears: t.int({
      description: 'The survival horizon the figure was measured at',
      resolve: (e) => e.figure.horizonYears,
    }),
    status: t.field({
      type: EvidenceStatusEnum,
      description: 'Its status for hand planting',
      resolve: (e) => e.status,
    }),
    droneSeeding: t.field({
      type: DroneSeedingEffectRef,
      description: 'Whether it applies to drone seeding',
      resolve: (e) => e.droneSeeding,
    }),
  }),
})

interface CatalogueView {
  dataVersion: string
  effects: readonly TreatmentCatalogueEffect[]
}

const TreatmentCatalogueRef = builder.objectRef<CatalogueView>('TreatmentCatalogue').implement({
  description: 'The treatments a request may name and every effect: the same as GET /v1/treatments',
  fields: (t) => ({
    dataVersion: t.exposeString('dataVersion', {
      description: 'Version of data/treatments.json (a hash of the file), as answers carry it',
    }),
    treatments: t.field({
      type: [TreatmentChoiceRef],
      description: 'The four treatments and their values',
      resolve: () => TREATMENT_NAMES.map((name) => ({ name, values: TREATMENT_VALUES[name] })),
    }),
    effects: t.field({
      type: [CatalogueEffectRef],
      description: 'Every effect, in the data’s order',
      resolve: (c) => [...c.effects],
    }),
  }),
})

builder.queryFields((t) => ({
  treatmentCatalogue: t.field({
    type: TreatmentCatalogueRef,
    description:
      'The treatments a request may name, and every effect with its figure, share, statuses, basis, sources and note (what TreatmentEffect.effectId names). Counts as one request',
    resolve: (_root, _args, ctx) => {
      const treatments = ctx.catalogue.treatments()
      return { dataVersion: treatments.dataVersion, effects: treatments.catalogue }
    },
  }),
}))
