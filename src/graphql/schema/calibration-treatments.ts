import type { TreatmentEffectFit } from '../../domain/calibration/treatment-effects-fit.ts'
import { builder } from './builder.ts'
import { EvidenceStatusEnum } from './treatments.ts'

/* A calibrated version's treatment effects (CalibrationFit.treatmentEffects; docs/treatments.md). */

const ShareRef = builder.objectRef<TreatmentEffectFit['prior']>('CalibratedTreatmentPrior').implement({
  description: 'The share r of its factors’ penalty an effect removes, as the reference gives it',
  fields: (t) => ({
    mean: t.exposeFloat('mean', { description: 'The reference’s share' }),
    sd: t.exposeFloat('sd', { description: 'Its SD, from the reference’s range' }),
  }),
})

const PosteriorRef = builder
  .objectRef<TreatmentEffectFit['posterior']>('CalibratedTreatmentPosterior')
  .implement({
    description: 'The share the version applies, after the surveys',
    fields: (t) => ({
      mean: t.exposeFloat('mean', { description: 'The share applied, in [0, 1]' }),
      sd: t.exposeFloat('sd', { description: 'Its posterior SD' }),
      interval: t.floatList({
        description: 'Its central interval at the fit’s level, [low, high]',
        resolve: (p) => [...p.interval],
      }),
    }),
  })

export const CalibratedTreatmentEffectRef = builder
  .objectRef<TreatmentEffectFit>('CalibratedTreatmentEffect')
  .implement({
    description:
      'A treatment effect the surveyed plots carried: the reference’s share as the prior, what the plots made of it, and how far they moved it',
    fields: (t) => ({
      effectId: t.exposeString('effectId', { description: 'The effect’s id in the treatments data' }),
      treatment: t.exposeString('treatment', { description: 'The treatment, e.g. animal_protection' }),
      values: t.exposeStringList('values', { description: 'The values of it this effect is' }),
      factors: t.exposeStringList('factors', { description: 'The model factors it acts on' }),
      evidence: t.field({
        type: EvidenceStatusEnum,
        nullable: true,
        description: 'The reference’s status for the effect',
        resolve: (e) => e.evidence,
      }),
      estimated: t.boolean({
        description: 'Whether the plots informed it; false: the reference’s share is kept (note says why)',
        resolve: (e) => e.status === 'estimated',
      }),
      plots: t.exposeInt('plots', { description: 'Plots it acted on (its factor active there)' }),
      prior: t.field({ type: ShareRef, description: 'The reference’s share', resolve: (e) => e.prior }),
      posterior: t.field({
        type: PosteriorRef,
        description: 'The share the version applies',
        resolve: (e) => e.posterior,
      }),
      moved: t.exposeFloat('moved', {
        description: '(posterior mean − prior mean) ÷ prior SD: how far the plots moved it',
      }),
      note: t.exposeString('note', {
        nullable: true,
        description: 'Why the prior is kept; null when estimated',
      }),
    }),
  })
