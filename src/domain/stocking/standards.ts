import { readFileSync } from 'node:fs'
import { projectFile } from '../../project-files.ts'
import type { ForestZone, SiteAttributes, UsState } from '../../types.ts'
import { SITE_CLASSES, type SiteClass } from '../site-class.ts'

const STANDARDS_FILE = projectFile('data/stocking_standards.json')

export const RULE_SET_IDS = ['or_fpa', 'wa_fpa_west', 'wa_fpa_east'] as const
export type RuleSetId = (typeof RULE_SET_IDS)[number]

/** The side of the Cascade crest each zone lies on; subalpine sites straddle it (see `crestSide`). */
const EAST_OF_CREST: ReadonlySet<ForestZone> = new Set([
  'eastside_cascades',
  'blue_mountains',
  'okanogan_selkirk',
])
/**
 * Washington's Cascade crest runs near 121.3° W; subalpine sites west of it (Olympics, west slopes)
 * take the west's rule. An approximation, stated in docs/stocking-plans.md.
 */
const CREST_LONGITUDE_WA = -121.3

/** Hardwoods may make up at most this share of Oregon's required stocking (OAR 629-610-0050, read conservatively). */
export const OREGON_HARDWOOD_SHARE_CAP = 0.2

/** One standard a plan is measured against. */
export interface StockingRule {
  id: RuleSetId
  name: string
  citation: string
  minimumTreesPerAcre: number
  /** Growing seasons after planting at which the standard is judged. */
  horizonYears: 1 | 3 | 5
  /** Oregon only: the site class the minimum belongs to. */
  siteClass: SiteClass | null
  /** true when the minimum came from secondary summaries and must be checked against the rule text. */
  verify: boolean
  /** Where the figure stands: "rule text read …" or "verify: …". */
  status: string
  /** At most this share of the minimum may be met by hardwoods; null: every species counts fully. */
  hardwoodShareCap: number | null
  sources: readonly string[]
}

interface ReferenceRuleSet {
  id: string
  name: string
  rules: string
  horizon_years: 1 | 3 | 5
  minimum_free_to_grow_seedlings_tpa?: { site_class: string; tpa: number; status: string }[]
  minimum_seedlings_tpa?: number
  area_rule?: string
  sources: string[]
}

interface StandardsReference {
  description: string
  rule_sets: ReferenceRuleSet[]
}

/** The reforestation standards of data/stocking_standards.json, read once. */
export class StockingStandards {
  private readonly byId: Map<RuleSetId, ReferenceRuleSet>

  constructor(readonly reference: StandardsReference) {
    this.byId = new Map()
    for (const id of RULE_SET_IDS) {
      const set = reference.rule_sets.find((candidate) => candidate.id === id)
      if (!set) throw new Error(`stocking_standards.json has no rule set ${id}`)
      this.byId.set(id, set)
    }
  }

  static load(): StockingStandards {
    return new StockingStandards(JSON.parse(readFileSync(STANDARDS_FILE, 'utf8')) as StandardsReference)
  }

  /** The rule set of a location: its state, then (in Washington) the side of the Cascade crest. */
  defaultRuleSet(state: UsState, site: Pick<SiteAttributes, 'zone'> & { longitude: number }): RuleSetId {
    if (state === 'OR') return 'or_fpa'
    return crestSide(site) === 'east' ? 'wa_fpa_east' : 'wa_fpa_west'
  }

  private readonly rules = new Map<string, StockingRule>()

  /** The standard of a rule set; Oregon's depends on the site class. Worked out once per pair. */
  rule(id: RuleSetId, siteClass: SiteClass): StockingRule {
    const key = `${id}:${siteClass}`
    let rule = this.rules.get(key)
    if (!rule) {
      rule = Object.freeze(this.ruleOf(id, siteClass))
      this.rules.set(key, rule)
    }
    return rule
  }

  private ruleOf(id: RuleSetId, siteClass: SiteClass): StockingRule {
    const set = this.byId.get(id) as ReferenceRuleSet
    const common = {
      id,
      name: set.name,
      citation: set.rules,
      horizonYears: set.horizon_years,
      sources: set.sources,
    }
    const byClass = set.minimum_free_to_grow_seedlings_tpa
    if (byClass) {
      const row = byClass.find((candidate) => candidate.site_class === siteClass)
      if (!row) throw new Error(`stocking_standards.json: ${id} has no site class ${siteClass}`)
      return {
        ...common,
        minimumTreesPerAcre: row.tpa,
        siteClass,
        verify: row.status.startsWith('verify'),
        status: row.status,
        hardwoodShareCap: OREGON_HARDWOOD_SHARE_CAP,
      }
    }
    if (set.minimum_seedlings_tpa === undefined)
      throw new Error(`stocking_standards.json: ${id} has no minimum`)
    return {
      ...common,
      minimumTreesPerAcre: set.minimum_seedlings_tpa,
      siteClass: null,
      verify: false,
      status:
        'minimum read from the rule summary; an area rule letting part of a unit fall below it is not modelled',
      hardwoodShareCap: null,
    }
  }

  /** Whether a rule set's standard depends on the site class (Oregon's). */
  hasSiteClasses(id: RuleSetId): boolean {
    return (this.byId.get(id) as ReferenceRuleSet).minimum_free_to_grow_seedlings_tpa !== undefined
  }

  /** The reference's own caution: synthetic data, an illustration, not a compliance determination. */
  get description(): string {
    return this.reference.description
  }
}

export function crestSide(site: Pick<SiteAttributes, 'zone'> & { longitude: number }): 'west' | 'east' {
  if (site.zone === 'subalpine') return site.longitude < CREST_LONGITUDE_WA ? 'west' : 'east'
  return EAST_OF_CREST.has(site.zone) ? 'east' : 'west'
}

export { SITE_CLASSES }

export const STOCKING_STANDARDS = StockingStandards.load()
