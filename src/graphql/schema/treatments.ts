import type {
  AppliedEffect,
  AppliedTreatments,
  EffectReading,
  TreatmentSource,
} from '../../domain/treatment-types.ts'
import type { HorizonTreatment, TreatedFactor } from '../../types.ts'
import { builder } from './builder.ts'

/** Establishment treatments: the input every prediction field takes, and what answers say of them (docs/treatments.md). */

export const VegetationControlEnum = builder.enumType('VegetationControl', {
  description: 'Control of competing vegetation (acts on the competing-vegetation factor)',
  values: {
    NONE: { value: 'none', description: 'No control: the untreated prediction' },
    SITE_PREP: {
      value: 'site_prep',
      description: 'Site preparation alone: one year of control (an assumption)',
    },
    RELEASE_1YR: {
      value: 'release_1yr',
      description: 'One release after planting: one year of control (an assumption)',
    },
    RELEASE_2YR: {
      value: 'release_2yr',
      description: 'Releases in the first two years: two years of control',
    },
    SITE_PREP_RELEASE_1YR: {
      value: 'site_prep_release_1yr',
      description: 'Site preparation and one release: two years of control',
    },
    SITE_PREP_RELEASE_2YR: {
      value: 'site_prep_release_2yr',
      description: 'Site preparation and two releases: a third year adds nothing measurable, as two years',
    },
  } as const,
})

export const AnimalProtectionEnum = builder.enumType('AnimalProtection', {
  description: 'Protection against browse (acts on the browse factor; hand planting only)',
  values: {
    NONE: { value: 'none', description: 'No protection' },
    MESH_TUBES: { value: 'mesh_tubes', description: 'Mesh or solid tubes on each seedling' },
  } as const,
})

export const StockTypeEnum = builder.enumType('StockType', {
  description: 'Nursery stock (acts on drought and heat; hand planting only)',
  values: {
    BAREROOT: { value: 'bareroot', description: 'Bareroot seedlings (2+0, 1+1)' },
    CONTAINER: { value: 'container', description: 'Container seedlings (plugs, plug+1)' },
  } as const,
})

export const ShadeEnum = builder.enumType('Shade', {
  description: 'Shade on the hot side of each seedling (acts on the hot-aspect factor; hand planting only)',
  values: {
    NONE: { value: 'none', description: 'No shade' },
    SHADE_CARDS: { value: 'shade_cards', description: 'Shade cards set on the south or west side' },
  } as const,
})

export const TreatmentsInput = builder.inputType('TreatmentsInput', {
  description:
    'Establishment treatments, each optional (absent, null or NONE: untreated). Each removes a share of the penalty of the factor it acts on, so it does nothing where that factor is absent. Only vegetation control applies to drone seeding; the others are invalid_treatment (422) with it. See docs/treatments.md',
  fields: (t) => ({
    vegetationControl: t.field({
      type: VegetationControlEnum,
      required: false,
      description: 'Vegetation control',
    }),
    animalProtection: t.field({
      type: AnimalProtectionEnum,
      required: false,
      description: 'Animal protection',
    }),
    stockType: t.field({ type: StockTypeEnum, required: false, description: 'Stock type' }),
    shade: t.field({ type: ShadeEnum, required: false, description: 'Shade' }),
  }),
})

export const TREATMENTS_ARG = 'Establishment treatments; absent or null: untreated (see TreatmentsInput)'

export const TreatmentSourceRef = builder.objectRef<TreatmentSource>('TreatmentSource').implement({
  description: 'A source a treatment effect rests on',
  fields: (t) => ({
    title: t.exposeString('title', { description: 'Title' }),
    publisher: t.exposeString('publisher', { nullable: true, description: 'Publisher' }),
    year: t.exposeInt('year', { nullable: true, description: 'Year; null when undated' }),
    url: t.exposeString('url', { nullable: true, description: 'Address' }),
  }),
})

export const EvidenceStatusEnum = builder.enumType('EvidenceStatus', {
  description: 'Where a figure stands (the reference’s statuses)',
  values: {
    PUBLISHED: { value: 'published', description: 'Taken from its cited source' },
    SYNTHESIS: { value: 'synthesis', description: 'Combined or inferred from several sources' },
    ASSUMPTION: { value: 'assumption', description: 'A placeholder with no supporting source' },
  } as const,
})

/** What an answer's effects and the catalogue's say alike: how the model reads an effect, and its sources. */
export const EffectReadingRef = builder.interfaceRef<EffectReading>('TreatmentEffectReading').implement({
  description: 'How the model reads a treatment effect, and what it rests on (docs/treatments.md)',
  fields: (t) => ({
    factors: t.exposeStringList('factors', { description: 'Keys of the model factors it acts on' }),
    figureKind: t.string({
      description: 'The reference figure’s kind: odds_ratio or percentage_points (of survival)',
      resolve: (e) => e.figure.kind,
    }),
    figureValue: t.float({ description: 'The reference’s central value', resolve: (e) => e.figure.value }),
    figureRange: t.floatList({
      description: 'The reference’s range [low, high]',
      resolve: (e) => [...e.figure.range],
    }),
    oddsRatio: t.exposeFloat('oddsRatio', {
      description: 'The figure as an odds ratio where its factor weighs its anchor',
    }),
    oddsRatioRange: t.floatList({
      description: 'The same for the range',
      resolve: (e) => [...e.oddsRatioRange],
    }),
    reduction: t.exposeFloat('reduction', {
      description: 'Share of its factors’ hand-planting penalty it removes (central value)',
    }),
    reductionRange: t.floatList({
      description: 'The share at the range’s ends (at most 1: the whole penalty)',
      resolve: (e) => [...e.reductionRange],
    }),
    reductionSd: t.exposeFloat('reductionSd', {
      description: 'SD of the share: the range read as its central 90 %; it widens the intervals',
    }),
    basis: t.exposeStringList('basis', { description: 'The reference entries it rests on' }),
    sources: t.field({
      type: [TreatmentSourceRef],
      description: 'Their sources, each once',
      resolve: (e) => [...e.sources],
    }),
    note: t.exposeString('note', { description: 'How the figure was read' }),
  }),
})

const TreatmentEffectRef = builder.objectRef<AppliedEffect>('TreatmentEffect').implement({
  description: 'One treatment of a request and the effect the model gives it',
  interfaces: [EffectReadingRef],
  fields: (t) => ({
    treatment: t.exposeString('treatment', {
      description: 'vegetation_control, animal_protection, stock_type or shade',
    }),
    value: t.exposeString('value', { description: 'Its value, e.g. release_2yr' }),
    effectId: t.exposeString('effectId', { description: 'The effect’s id in data/treatments.json' }),
    shareFrom: t.exposeString('shareFrom', {
      description:
        'reference (the figure), or calibration: the answering version’s surveys informed the share, and reduction, its range and SD are that posterior',
    }),
    status: t.field({
      type: EvidenceStatusEnum,
      description: 'Its status for this planting method',
      resolve: (e) => e.status,
    }),
  }),
})

export const AppliedTreatmentsRef = builder.objectRef<AppliedTreatments>('AppliedTreatments').implement({
  description: 'The treatments an answer was made with, and what each rests on',
  fields: (t) => ({
    vegetationControl: t.string({
      nullable: true,
      description: 'As asked for; null: not named',
      resolve: (a) => a.values.vegetation_control,
    }),
    animalProtection: t.string({
      nullable: true,
      description: 'As asked for',
      resolve: (a) => a.values.animal_protection,
    }),
    stockType: t.string({ nullable: true, description: 'As asked for', resolve: (a) => a.values.stock_type }),
    shade: t.string({ nullable: true, description: 'As asked for', resolve: (a) => a.values.shade }),
    dataVersion: t.exposeString('dataVersion', {
      description: 'Version of data/treatments.json (a hash of the file)',
    }),
    effects: t.field({
      type: [TreatmentEffectRef],
      description: 'The treatments with an effect (NONE values have none)',
      resolve: (a) => [...a.effects],
    }),
  }),
})

const TreatedFactorRef = builder.objectRef<TreatedFactor>('TreatedFactor').implement({
  description: 'A factor the treatments changed: its contribution with and without them, log-odds',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Factor key, as in RiskFactor.key' }),
    factor: t.exposeString('factor', { description: 'Factor name' }),
    contribution: t.exposeFloat('contribution', { description: 'With the treatments' }),
    untreatedContribution: t.exposeFloat('untreatedContribution', { description: 'Without them' }),
    treatments: t.exposeStringList('treatments', { description: 'The treatments that acted on it' }),
  }),
})

export const HorizonTreatmentRef = builder.objectRef<HorizonTreatment>('HorizonTreatment').implement({
  description: 'What the treatments changed at one horizon',
  fields: (t) => ({
    untreatedSurvivalProbability: t.exposeFloat('untreatedSurvivalProbability', {
      description: 'Survival without the treatments',
    }),
    untreatedLogOdds: t.exposeFloat('untreatedLogOdds', { description: 'Its log-odds' }),
    effectSd: t.exposeFloat('effectSd', {
      description:
        'SD on the logit scale of the treatments’ effect here (their ranges), within survivalInterval',
    }),
    factors: t.field({
      type: [TreatedFactorRef],
      description:
        'The factors they changed, in the model’s order (a factor they act on that is no risk here is left as it was, and not listed)',
      resolve: (h) => [...h.factors],
    }),
  }),
})

export const MethodTreatmentsRef = builder
  .objectRef<{ manual: AppliedTreatments; droneSeeded: AppliedTreatments }>('MethodTreatments')
  .implement({
    description: 'The treatments a comparison was made with, for each method',
    fields: (t) => ({
      manual: t.field({ type: AppliedTreatmentsRef, description: 'Hand planting', resolve: (m) => m.manual }),
      droneSeeded: t.field({
        type: AppliedTreatmentsRef,
        description: 'Drone seeding (its statuses are assumptions)',
        resolve: (m) => m.droneSeeded,
      }),
    }),
  })
