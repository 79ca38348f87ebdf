import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { projectFile } from '../../project-files.ts'
import type { PlantingMethod, Species } from '../../types.ts'
import { resolveSpecies } from '../catalogue.ts'
import { invalidField } from '../errors.ts'
import { SPECIES } from '../species.ts'
import type { EvidenceStatus, TreatmentSource } from '../treatment-types.ts'

/*
 * What establishment costs (docs/costs.md): the defaults of data/costs.json (the reference's figures,
 * each with its status, sources and price year, copied beside the code), read and checked once at
 * start; a request's own figures (`costs`) replace any of them exactly. A plan's cost per acre is the
 * sum of its parts; per established tree it is that over the trees alive at the rule's horizon.
 */

const COSTS_FILE = projectFile('data/costs.json')

export const COST_ITEMS = [
  'seedlings',
  'planting',
  'site_preparation',
  'release',
  'tubes',
  'shade_cards',
  'drone_seeding',
  'seed_pods',
] as const
export type CostItem = (typeof COST_ITEMS)[number]
export type CostUnit = 'per_tree' | 'per_acre' | 'per_pod'

/** A figure's standing: the reference's three, or `given` (the request's own). */
export type CostStatus = EvidenceStatus | 'given'

/** Highest per-tree (or per-pod) and per-acre figure a request may give, USD. */
export const COST_PER_TREE_MAX = 1000
export const COST_PER_ACRE_MAX = 100_000

const perTreeRule = z
  .number({ error: 'must be a number' })
  .min(0, `must be from 0 to ${COST_PER_TREE_MAX} USD`)
  .max(COST_PER_TREE_MAX, `must be from 0 to ${COST_PER_TREE_MAX} USD`)
const perAcreRule = z
  .number({ error: 'must be a number' })
  .min(0, `must be from 0 to ${COST_PER_ACRE_MAX} USD`)
  .max(COST_PER_ACRE_MAX, `must be from 0 to ${COST_PER_ACRE_MAX} USD`)

/** The input rules of a `costs` object's figures, for the adapters (REST names them in snake_case). */
export const COST_INPUT_RULES = { perTree: perTreeRule, perAcre: perAcreRule }

/** A request's own figures, the domain's names; each absent or null keeps the default. */
export interface CostsRequest {
  /** Seedling price per tree by species (each species once). */
  seedlings?: readonly { speciesCode: string; perTree: number }[] | null
  plantingPerTree?: number | null
  sitePreparationPerAcre?: number | null
  /** One release (vegetation control after planting); two releases cost twice this. */
  releasePerAcre?: number | null
  tubesPerTree?: number | null
  shadeCardsPerTree?: number | null
  droneSeedingPerAcre?: number | null
  seedPodPerPod?: number | null
}

const FIGURE_FIELDS: readonly [Exclude<keyof CostsRequest, 'seedlings'>, CostItem, CostUnit][] = [
  ['plantingPerTree', 'planting', 'per_tree'],
  ['sitePreparationPerAcre', 'site_preparation', 'per_acre'],
  ['releasePerAcre', 'release', 'per_acre'],
  ['tubesPerTree', 'tubes', 'per_tree'],
  ['shadeCardsPerTree', 'shade_cards', 'per_tree'],
  ['droneSeedingPerAcre', 'drone_seeding', 'per_acre'],
  ['seedPodPerPod', 'seed_pods', 'per_pod'],
]

/** One figure priced with: a default of data/costs.json or the request's own. */
export interface CostFigure {
  item: CostItem
  unit: CostUnit
  value: number
  /** The default's range in the reference; null for a figure given or a default without one. */
  range: readonly [number, number] | null
  status: CostStatus
  /** The default's id in data/costs.json; null for a figure given. */
  defaultId: string | null
  /** The year of the price where its source states one. */
  priceYear: number | null
  priceYearNote: string | null
  sources: readonly TreatmentSource[]
  note: string
}

/** One part of a plan's cost per acre. */
export interface CostPart {
  item: CostItem
  /** Seedlings: the species; null otherwise. */
  speciesCode: string | null
  unit: CostUnit
  unitCost: number
  /** Trees or pods per acre (per_tree, per_pod), or applications (per_acre: 1, or 2 releases). */
  quantity: number
  perAcre: number
  status: CostStatus
  defaultId: string | null
  priceYear: number | null
  sources: readonly TreatmentSource[]
}

/** What a plan costs: per acre planted and per tree established at the rule's horizon. */
export interface PlanCost {
  currency: 'USD'
  perAcre: number
  horizonYears: number
  /** Expected trees alive per acre at the horizon (planted × the mix's survival there). */
  establishedTreesPerAcre: number
  /** Cost per acre ÷ the established trees; null when none is expected. */
  perEstablishedTree: number | null
  /**
   * From the plan's interval of survivors at its confidence: `lower` over the upper count, `upper`
   * over the lower count (null when that count is 0).
   */
  perEstablishedTreeInterval: { lower: number | null; upper: number | null; level: number }
  parts: CostPart[]
  /** The least certain status among the parts (assumption, then synthesis, published, given). */
  leastCertainStatus: CostStatus
  dataVersion: string
}

const STATUS_ORDER: readonly CostStatus[] = ['assumption', 'synthesis', 'published', 'given']

/** The least certain of some statuses (an assumption outweighs everything). */
export function leastCertain(statuses: Iterable<CostStatus>): CostStatus {
  let worst: CostStatus = 'given'
  for (const status of statuses) {
    if (STATUS_ORDER.indexOf(status) < STATUS_ORDER.indexOf(worst)) worst = status
  }
  return worst
}

const status = z.enum(['published', 'synthesis', 'assumption'])
const source = z.object({
  title: z.string().min(1),
  publisher: z.string().min(1).optional(),
  year: z.number().int().nullable().optional(),
  url: z.string().optional(),
})
const defaultSchema = z.strictObject({
  id: z.string().min(1),
  item: z.enum(COST_ITEMS),
  unit: z.enum(['per_tree', 'per_acre', 'per_pod']),
  species: z.union([z.array(z.string().min(1)).min(1), z.enum(['other_conifers', 'hardwoods'])]).optional(),
  methods: z
    .array(z.enum(['manual', 'drone_seeded']))
    .min(1)
    .optional(),
  value: z.number().finite().nonnegative(),
  range: z.tuple([z.number().finite(), z.number().finite()]).nullable(),
  status,
  price_year: z.number().int().min(1900).max(2100).nullable(),
  price_year_note: z.string().min(1),
  basis: z.array(z.string()),
  note: z.string().min(1),
})
const fileSchema = z.object({
  description: z.string().min(1),
  reference: z.object({ file: z.string(), compiled: z.string() }),
  currency: z.literal('USD'),
  defaults: z.array(defaultSchema).min(1),
  not_priced: z.array(z.object({ item: z.string(), note: z.string() })),
  entries: z.array(z.object({ id: z.string().min(1), status, sources: z.array(source) }).loose()),
  gaps: z.array(z.string()),
})
type CostsFile = z.infer<typeof fileSchema>
type DefaultSpec = CostsFile['defaults'][number]

/** Per-tree items (and pods): how many per acre of the planted trees each needs. */
const UNIT_OF: Record<CostItem, CostUnit> = {
  seedlings: 'per_tree',
  planting: 'per_tree',
  site_preparation: 'per_acre',
  release: 'per_acre',
  tubes: 'per_tree',
  shade_cards: 'per_tree',
  drone_seeding: 'per_acre',
  seed_pods: 'per_pod',
}

/** A request's figures resolved against the defaults: one figure per item (seedlings per species). */
export interface ResolvedCosts {
  figure(item: Exclude<CostItem, 'seedlings'>): CostFigure
  seedling(species: Species): CostFigure
  /** true when the request gave any figure of its own (or an empty `costs`). */
  readonly asked: boolean
}

/**
 * The defaults of data/costs.json, checked once: every item priced, every species of the catalogue
 * with a seedling price (its own, or its group's), every basis an entry of the file.
 */
export class Costs {
  readonly dataVersion: string
  readonly defaults: readonly CostFigure[]
  readonly gaps: readonly string[]
  readonly notPriced: readonly { item: string; note: string }[]
  private readonly byItem = new Map<CostItem, CostFigure>()
  private readonly bySpecies = new Map<string, CostFigure>()
  private readonly methodsOf = new Map<CostItem, readonly PlantingMethod[] | null>()

  constructor(file: CostsFile, fileText: string) {
    this.dataVersion = `costs-${createHash('sha256').update(fileText).digest('hex').slice(0, 12)}`
    const entries = new Map(file.entries.map((entry) => [entry.id, entry]))
    const figures: CostFigure[] = []
    let otherConifers: CostFigure | null = null
    let hardwoods: CostFigure | null = null
    for (const spec of file.defaults) {
      if (spec.unit !== UNIT_OF[spec.item])
        throw new Error(
          `costs.json: ${spec.id} is ${spec.unit}; ${spec.item} is priced ${UNIT_OF[spec.item]}`,
        )
      if (spec.range && !(spec.range[0] <= spec.value && spec.value <= spec.range[1]))
        throw new Error(`costs.json: ${spec.id} has its value outside its range`)
      const figure = Object.freeze({
        item: spec.item,
        unit: spec.unit,
        value: spec.value,
        range: spec.range ? Object.freeze([spec.range[0], spec.range[1]] as const) : null,
        status: spec.status,
        defaultId: spec.id,
        priceYear: spec.price_year,
        priceYearNote: spec.price_year_note,
        sources: sourcesOf(spec, entries),
        note: spec.note,
      })
      figures.push(figure)
      if (spec.item === 'seedlings') {
        if (spec.species === 'other_conifers') otherConifers = figure
        else if (spec.species === 'hardwoods') hardwoods = figure
        else if (spec.species) {
          for (const code of spec.species) {
            if (this.bySpecies.has(code)) throw new Error(`costs.json: seedlings of ${code} are priced twice`)
            resolveSpecies(code)
            this.bySpecies.set(code, figure)
          }
        } else throw new Error(`costs.json: ${spec.id} prices seedlings without naming the species`)
        continue
      }
      if (this.byItem.has(spec.item)) throw new Error(`costs.json: ${spec.item} is priced twice`)
      this.byItem.set(spec.item, figure)
      this.methodsOf.set(spec.item, spec.methods ? Object.freeze([...spec.methods]) : null)
    }
    if (!otherConifers || !hardwoods)
      throw new Error('costs.json: seedlings need a price for other conifers and for hardwoods')
    for (const species of SPECIES) {
      if (!this.bySpecies.has(species.code))
        this.bySpecies.set(species.code, species.group === 'hardwood' ? hardwoods : otherConifers)
    }
    for (const item of COST_ITEMS) {
      if (item !== 'seedlings' && !this.byItem.has(item))
        throw new Error(`costs.json: ${item} has no default`)
    }
    this.defaults = Object.freeze(figures)
    this.gaps = Object.freeze([...file.gaps])
    this.notPriced = Object.freeze(file.not_priced.map((n) => Object.freeze({ ...n })))
  }

  static load(): Costs {
    const text = readFileSync(COSTS_FILE, 'utf8')
    const parsed = fileSchema.safeParse(JSON.parse(text))
    if (!parsed.success) throw new Error(`data/costs.json is invalid:\n${z.prettifyError(parsed.error)}`)
    return new Costs(parsed.data, text)
  }

  /** The default seedling price of a species (its own where known, else its group's). */
  defaultSeedling(species: Species): CostFigure {
    return this.bySpecies.get(species.code) as CostFigure
  }

  /**
   * A request's figures over the defaults, checked: each figure within its limits, each seedling
   * species known and listed once. `field` prefixes the errors' field names.
   */
  resolve(request: CostsRequest | null | undefined, field = 'costs'): ResolvedCosts {
    const given = new Map<CostItem, CostFigure>()
    const seedlings = new Map<string, CostFigure>()
    if (request) {
      for (const [name, item, unit] of FIGURE_FIELDS) {
        const value = request[name]
        if (value == null) continue
        checkFigure(`${field}.${name}`, value, unit === 'per_acre' ? COST_PER_ACRE_MAX : COST_PER_TREE_MAX)
        given.set(item, givenFigure(item, unit, value))
      }
      const list = request.seedlings ?? []
      if (list.length > SPECIES.length)
        throw invalidField(`${field}.seedlings`, `may hold at most ${SPECIES.length} species`)
      list.forEach((entry, i) => {
        const species = resolveSpecies(entry.speciesCode)
        if (seedlings.has(species.code))
          throw invalidField(
            `${field}.seedlings[${i}].speciesCode`,
            `repeats ${species.code}; list each species once`,
          )
        checkFigure(`${field}.seedlings[${i}].perTree`, entry.perTree, COST_PER_TREE_MAX)
        seedlings.set(species.code, givenFigure('seedlings', 'per_tree', entry.perTree))
      })
    }
    return {
      asked: request != null,
      figure: (item) => given.get(item) ?? (this.byItem.get(item) as CostFigure),
      seedling: (species) => seedlings.get(species.code) ?? this.defaultSeedling(species),
    }
  }

  /** The methods an item applies to (null: both). */
  methods(item: CostItem): readonly PlantingMethod[] | null {
    return this.methodsOf.get(item) ?? null
  }
}

function checkFigure(field: string, value: number, max: number): void {
  if (!(Number.isFinite(value) && value >= 0 && value <= max))
    throw invalidField(field, `must be from 0 to ${max} USD`)
}

function givenFigure(item: CostItem, unit: CostUnit, value: number): CostFigure {
  return {
    item,
    unit,
    value,
    range: null,
    status: 'given',
    defaultId: null,
    priceYear: null,
    priceYearNote: null,
    sources: [],
    note: 'The request’s own figure',
  }
}

function sourcesOf(
  spec: DefaultSpec,
  entries: Map<string, CostsFile['entries'][number]>,
): readonly TreatmentSource[] {
  const seen = new Map<string, TreatmentSource>()
  for (const id of spec.basis) {
    const entry = entries.get(id)
    if (!entry) throw new Error(`costs.json: ${spec.id} rests on unknown entry ${id}`)
    for (const s of entry.sources) {
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
  if (spec.status === 'published' && seen.size === 0)
    throw new Error(`costs.json: ${spec.id} is published but names no source`)
  return Object.freeze([...seen.values()])
}

/** The defaults of data/costs.json, read once. */
export const COSTS = Costs.load()
