import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { FACTOR_KEYS } from '../model/artifact.ts'
import { projectFile } from '../project-files.ts'
import { logit } from '../stats/logistic.ts'
import { normalQuantile } from '../stats/normal.ts'
import type { PlantingMethod, TreatmentEffect } from '../types.ts'
import { apiError, invalidField } from './errors.ts'
import type {
  AppliedEffect,
  AppliedTreatments,
  EffectReference,
  TreatmentCatalogueEffect,
  TreatmentSource,
} from './treatment-types.ts'
import {
  TREATMENT_NAMES,
  TREATMENT_VALUES,
  type TreatmentName,
  type TreatmentsRequest,
} from './treatment-values.ts'

/*
 * Establishment treatments (docs/treatments.md): the four a request may name, their values, and the
 * effect each value has on the model, from data/treatments.json (the reference's figures, statuses and
 * sources, copied beside the code). Read and checked once, at start; a request's treatments resolve to
 * one shared, frozen answer per combination and planting method.
 */

const TREATMENTS_FILE = projectFile('data/treatments.json')

const REQUEST_FIELD: Record<TreatmentName, keyof TreatmentsRequest> = {
  vegetation_control: 'vegetationControl',
  animal_protection: 'animalProtection',
  stock_type: 'stockType',
  shade: 'shade',
}

const status = z.enum(['published', 'synthesis', 'assumption'])
const source = z.object({
  title: z.string().min(1),
  publisher: z.string().min(1).optional(),
  year: z.number().int().nullable().optional(),
  url: z.string().optional(),
})
const effectSchema = z.strictObject({
  id: z.string().min(1),
  treatment: z.enum(TREATMENT_NAMES as [TreatmentName, ...TreatmentName[]]),
  values: z.array(z.string()).min(1),
  factors: z.array(z.enum(FACTOR_KEYS)).min(1),
  figure: z.strictObject({
    kind: z.enum(['odds_ratio', 'percentage_points']),
    value: z.number().finite(),
    range: z.tuple([z.number().finite(), z.number().finite()]),
    horizon_years: z.number().int().positive(),
  }),
  anchor_logit: z.number().positive(),
  anchor: z.string().min(1),
  status,
  basis: z.array(z.string()).min(1),
  note: z.string().min(1),
  drone_seeding: z.union([
    z.strictObject({ applies: z.literal(true), status, note: z.string().min(1) }),
    z.strictObject({ applies: z.literal(false), reason: z.string().min(1) }),
  ]),
})
const fileSchema = z.object({
  description: z.string().min(1),
  reference: z.object({ file: z.string(), compiled: z.string() }),
  conversion: z.object({
    baseline_survival: z.number().gt(0).lt(1),
    range_level: z.number().gt(0).lt(1),
  }),
  effects: z.array(effectSchema).min(1),
  entries: z.array(z.object({ id: z.string().min(1), status, sources: z.array(source) }).loose()),
})
type TreatmentsFile = z.infer<typeof fileSchema>
type EffectSpec = TreatmentsFile['effects'][number]

interface PreparedEffect {
  spec: EffectSpec
  /** The answer's description, per method (drone seeding only where it applies). */
  byMethod: Partial<Record<PlantingMethod, AppliedEffect>>
  model: TreatmentEffect | null
}

const clampShare = (share: number) => Math.min(1, Math.max(-1, share))

/**
 * The treatments of data/treatments.json, checked and converted once: each figure becomes a log odds
 * ratio (percentage points at the file's baseline survival), the share r = ln OR ÷ the anchor's penalty
 * (at most the whole penalty), and the range, read as the central `range_level` of r's normal, its SD.
 */
export class Treatments {
  readonly dataVersion: string
  /** Each effect by its id: its share r and SD (the prior a calibration starts from), and what it names. */
  readonly byEffect = new Map<string, EffectReference>()
  /** Every effect with its figure, statuses, sources and note, in the file's order. */
  readonly catalogue: readonly TreatmentCatalogueEffect[]
  private readonly byValue = new Map<string, PreparedEffect>()
  /** By combination number (see resolve): the few hundred combinations there are. */
  private readonly resolved = new Map<number, AppliedTreatments | null>()

  constructor(file: TreatmentsFile, fileText: string) {
    this.dataVersion = `treatments-${createHash('sha256').update(fileText).digest('hex').slice(0, 12)}`
    const entries = new Map(file.entries.map((entry) => [entry.id, entry]))
    const catalogue: TreatmentCatalogueEffect[] = []
    const z95 = normalQuantile((1 + file.conversion.range_level) / 2)
    const logOddsRatio = (kind: EffectSpec['figure']['kind'], value: number) =>
      kind === 'odds_ratio'
        ? Math.log(value)
        : logit(file.conversion.baseline_survival + value / 100) - logit(file.conversion.baseline_survival)
    for (const spec of file.effects) {
      const { kind, value, range } = spec.figure
      if (!(range[0] <= value && value <= range[1]))
        throw new Error(`treatments.json: effect ${spec.id} has its value outside its range`)
      const ln = [range[0], value, range[1]].map((x) => logOddsRatio(kind, x)) as [number, number, number]
      const [low, reduction, high] = ln.map((x) => clampShare(x / spec.anchor_logit)) as [
        number,
        number,
        number,
      ]
      if (!(reduction >= 0))
        throw new Error(`treatments.json: effect ${spec.id} would lower survival; a treatment never does`)
      const reductionSd = (high - low) / (2 * z95)
      const sources = uniqueSources(
        spec.basis.map((id) => {
          const entry = entries.get(id)
          if (!entry) throw new Error(`treatments.json: effect ${spec.id} rests on unknown entry ${id}`)
          return entry.sources
        }),
      )
      const described = (valueName: string, method: PlantingMethod): AppliedEffect =>
        Object.freeze({
          treatment: spec.treatment,
          value: valueName,
          effectId: spec.id,
          factors: Object.freeze([...spec.factors]),
          figure: Object.freeze({ kind, value, range: Object.freeze([range[0], range[1]] as const) }),
          oddsRatio: Math.exp(ln[1]),
          oddsRatioRange: Object.freeze([Math.exp(ln[0]), Math.exp(ln[2])] as const),
          reduction,
          reductionRange: Object.freeze([low, high] as const),
          reductionSd,
          shareFrom: 'reference' as const,
          status:
            method === 'drone_seeded' && spec.drone_seeding.applies ? spec.drone_seeding.status : spec.status,
          basis: Object.freeze([...spec.basis]),
          sources,
          note:
            method === 'drone_seeded' && spec.drone_seeding.applies
              ? `${spec.note} Drone seeding: ${spec.drone_seeding.note}`
              : spec.note,
        })
      const { note: _manualNote, ...manual } = described(spec.values[0] as string, 'manual')
      catalogue.push(
        Object.freeze({
          id: spec.id,
          treatment: spec.treatment,
          values: Object.freeze([...spec.values]),
          factors: manual.factors,
          figure: Object.freeze({ ...manual.figure, horizonYears: spec.figure.horizon_years }),
          oddsRatio: manual.oddsRatio,
          oddsRatioRange: manual.oddsRatioRange,
          reduction,
          reductionRange: manual.reductionRange,
          reductionSd,
          status: spec.status,
          droneSeeding: Object.freeze(
            spec.drone_seeding.applies
              ? { applies: true as const, status: spec.drone_seeding.status, note: spec.drone_seeding.note }
              : { applies: false as const, reason: spec.drone_seeding.reason },
          ),
          basis: manual.basis,
          sources,
          note: spec.note,
        }),
      )
      this.byEffect.set(
        spec.id,
        Object.freeze({
          treatment: spec.treatment,
          values: Object.freeze([...spec.values]),
          factors: Object.freeze([...spec.factors]),
          status: spec.status,
          mean: reduction,
          sd: reductionSd,
        }),
      )
      for (const valueName of spec.values) {
        const allowed = TREATMENT_VALUES[spec.treatment] as readonly string[]
        if (!allowed.includes(valueName) || valueName === 'none')
          throw new Error(`treatments.json: ${spec.treatment} has no value ${valueName} to give an effect`)
        const key = `${spec.treatment}=${valueName}`
        if (this.byValue.has(key)) throw new Error(`treatments.json: ${key} has two effects`)
        this.byValue.set(key, {
          spec,
          byMethod: {
            manual: described(valueName, 'manual'),
            ...(spec.drone_seeding.applies ? { drone_seeded: described(valueName, 'drone_seeded') } : {}),
          },
          model: Object.freeze({
            treatment: spec.treatment,
            value: valueName,
            factorKeys: Object.freeze([...spec.factors]),
            reduction,
            reductionSd,
          }),
        })
      }
    }
    for (const name of TREATMENT_NAMES) {
      for (const valueName of TREATMENT_VALUES[name]) {
        if (valueName !== 'none' && !this.byValue.has(`${name}=${valueName}`))
          throw new Error(`treatments.json: ${name}=${valueName} has no effect`)
      }
    }
    this.catalogue = Object.freeze(catalogue)
  }

  static load(): Treatments {
    const text = readFileSync(TREATMENTS_FILE, 'utf8')
    const parsed = fileSchema.safeParse(JSON.parse(text))
    if (!parsed.success) throw new Error(`data/treatments.json is invalid:\n${z.prettifyError(parsed.error)}`)
    return new Treatments(parsed.data, text)
  }

  /**
   * A request's treatments for one planting method, or null when they change nothing (none asked
   * for, or only `none` values): the answer is then exactly the untreated one. A treatment that does
   * not apply to drone seeding is `invalid_treatment`; `comparing` says the request predicts both
   * methods at once.
   */
  resolve(
    request: TreatmentsRequest | null | undefined,
    method: PlantingMethod,
    comparing = false,
  ): AppliedTreatments | null {
    if (!request) return null
    // The combination's number: the method, then each treatment's value by its place in its list (0: unnamed).
    let key = method === 'manual' ? 0 : 1
    for (const name of TREATMENT_NAMES) {
      const value = request[REQUEST_FIELD[name]] ?? null
      const known: readonly string[] = TREATMENT_VALUES[name]
      const at = value === null ? -1 : known.indexOf(value)
      if (value !== null && at < 0)
        throw invalidField(`treatments.${name}`, `must be one of ${TREATMENT_VALUES[name].join(', ')}`)
      key = key * (known.length + 1) + at + 1
    }
    const known = this.resolved.get(key)
    if (known !== undefined) return known
    const values = {} as Record<TreatmentName, string | null>
    for (const name of TREATMENT_NAMES) values[name] = request[REQUEST_FIELD[name]] ?? null
    const effects: AppliedEffect[] = []
    const modelEffects: TreatmentEffect[] = []
    for (const name of TREATMENT_NAMES) {
      const value = values[name]
      if (value === null || value === 'none') continue
      const prepared = this.byValue.get(`${name}=${value}`) as PreparedEffect
      const described = prepared.byMethod[method]
      if (!described) {
        const { drone_seeding: drone } = prepared.spec
        throw apiError(
          'invalid_treatment',
          {
            treatment: name,
            value,
            reason: drone.applies ? 'no effect is stated for it' : drone.reason,
            comparing,
          },
          { details: { treatment: name, value, planting_method: method } },
        )
      }
      effects.push(described)
      modelEffects.push(prepared.model as TreatmentEffect)
    }
    const applied =
      effects.length === 0
        ? null
        : Object.freeze({
            values: Object.freeze(values),
            effects: Object.freeze(effects),
            modelEffects: Object.freeze(modelEffects),
            dataVersion: this.dataVersion,
          })
    this.resolved.set(key, applied)
    return applied
  }
}

function uniqueSources(lists: readonly (readonly z.infer<typeof source>[])[]): readonly TreatmentSource[] {
  const seen = new Map<string, TreatmentSource>()
  for (const list of lists) {
    for (const s of list) {
      if (!seen.has(s.title))
        seen.set(
          s.title,
          Object.freeze({
            title: s.title,
            publisher: s.publisher ?? null,
            year: s.year ?? null,
            url: s.url ?? null,
          }),
        )
    }
  }
  return Object.freeze([...seen.values()])
}

/** The treatments of data/treatments.json, read once. */
export const TREATMENTS = Treatments.load()
