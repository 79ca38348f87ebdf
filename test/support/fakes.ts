/**
 * In-memory stand-ins for the ports of src/types.ts and the few collaborators the unit tests beside
 * src/ need: no database, no Redis, no server. Each fake records what it was asked, so a test can
 * prove how often and with what the code under test called it.
 */

import { generateApiKey, generateKeyId, hashApiKey } from '../../src/access/api-key.ts'
import { AccessControl } from '../../src/access/auth/access-control.ts'
import { Authenticator } from '../../src/access/auth/authenticator.ts'
import { MemoryQuotaStore } from '../../src/access/quota/memory-quota-store.ts'
import { QuotaGuard } from '../../src/access/quota/quota-guard.ts'
import { KeyService, type UsageSource } from '../../src/domain/key-service.ts'
import type { AuditLog } from '../../src/domain/ports/audit.ts'
import type { KeyAccounts, KeyDirectory } from '../../src/domain/ports/keys.ts'
import type { NearestSiteLookup, SiteTable } from '../../src/domain/ports/sites.ts'
import type { Logger } from '../../src/logging/logger.ts'
import { createRequestContext, type RequestContext } from '../../src/observability/request-context.ts'
import type {
  ApiKeyRecord,
  AuditEvent,
  Coordinates,
  KeyStatus,
  NearestSite,
  NewAuditEvent,
  Site,
  Tier,
  TierName,
} from '../../src/types.ts'
import { TEST_ADDRESS_HASH_KEY } from './address-hash-key.ts'
import { FOREST_POINTS, NO_DATA_POINTS, OUTSIDE_POINTS } from './sites.ts'

/** The tiers of sql/002_tiers_api_keys.sql. */
export const TIERS: Readonly<Record<TierName, Tier>> = Object.freeze({
  spore: { name: 'spore', dailyRequestLimit: 100, batchSizeLimit: 10 },
  mycel: { name: 'mycel', dailyRequestLimit: 10_000, batchSizeLimit: 100 },
  hypha: { name: 'hypha', dailyRequestLimit: null, batchSizeLimit: 500 },
})

export { FOREST_POINTS, OUTSIDE_POINTS }

/** Covered, but (in the real data) without a forest site nearby: the fakes answer null here by default. */
export const NO_DATA_POINT: Coordinates = NO_DATA_POINTS.downtownPortland

const samePoint = (a: Coordinates, b: Coordinates) => a.latitude === b.latitude && a.longitude === b.longitude

/** A plausible westside forest site a little north of `point`. */
export function forestSite(point: Coordinates, overrides: Partial<Site> = {}): Site {
  return {
    id: Math.round(Math.abs(point.latitude * 1000 + point.longitude * 10)),
    latitude: Number((point.latitude + 0.01).toFixed(5)),
    longitude: point.longitude,
    regionId: 'or_coast_range',
    zone: 'westside_lowland',
    state: 'OR',
    elevationM: 420,
    slopeDeg: 18,
    aspectDeg: 200,
    heatLoadIndex: 0.55,
    soilDepthCm: 95,
    rockFractionPct: 12,
    vegetationCoverPct: 55,
    annualPrecipMm: 1900,
    summerWaterDeficitMm: 140,
    growingSeasonFrostDays: 3,
    browsePressureIndex: 0.35,
    ...overrides,
  }
}

/** The site data version the fakes' sites come from. */
export const FAKE_DATA_VERSION = 'sites_0123456789ab'

/** The fake's default answer: a forest site 1.11 km away, except at NO_DATA_POINT. */
export function nearbyForestSite(point: Coordinates): NearestSite | null {
  return samePoint(point, NO_DATA_POINT)
    ? null
    : { site: forestSite(point), distanceKm: 1.11, dataVersion: FAKE_DATA_VERSION }
}

/** NearestSiteLookup answering from a function, recording every call. */
export class FakeSiteLookup implements NearestSiteLookup {
  readonly oneCalls: Coordinates[] = []
  readonly manyCalls: Coordinates[][] = []

  constructor(private readonly answer: (point: Coordinates) => NearestSite | null = nearbyForestSite) {}

  async one(point: Coordinates): Promise<NearestSite | null> {
    this.oneCalls.push(point)
    return this.answer(point)
  }

  async many(points: readonly Coordinates[]): Promise<(NearestSite | null)[]> {
    this.manyCalls.push([...points])
    return points.map((point) => this.answer(point))
  }

  get calls(): number {
    return this.oneCalls.length + this.manyCalls.length
  }
}

/** A NearestSiteLookup whose store is away or broken: every call rejects with `error`. */
export function failingSiteLookup(error: unknown): NearestSiteLookup {
  return {
    one: () => Promise.reject(error),
    many: () => Promise.reject(error),
  }
}

/** SiteTable over an array of sites: `replace` changes them and the revision, as a reseed would. */
export class FakeSiteTable implements SiteTable {
  revisionReads = 0
  reads = 0
  private current: { revision: string; sites: Site[] }

  constructor(sites: Site[]) {
    this.current = { revision: 'r1', sites }
  }

  replace(sites: Site[]): void {
    this.current = { revision: `r${Number(this.current.revision.slice(1)) + 1}`, sites }
  }

  async revision(): Promise<string> {
    this.revisionReads += 1
    return this.current.revision
  }

  async all(): Promise<{ revision: string; dataVersion: string | null; sites: Site[] }> {
    this.reads += 1
    return { revision: this.current.revision, dataVersion: FAKE_DATA_VERSION, sites: [...this.current.sites] }
  }
}

/** KeyDirectory over a Map of hashes; `issue` hands out real, well-formed keys. */
export class FakeKeyDirectory implements KeyDirectory {
  private readonly records = new Map<string, ApiKeyRecord>()
  /** findByHash calls: shows whether a request reached the key store at all. */
  lookups = 0
  /** When set, every call rejects with it (a store that is away, or a bug below). */
  failure: unknown = null

  constructor(private readonly tierList: readonly Tier[] = Object.values(TIERS)) {}

  /** A new key of `tier` in `status`: returns the key as the client would send it, and its id. */
  issue(tier: TierName, status: KeyStatus = 'active'): { key: string; id: string } {
    const key = generateApiKey()
    const id = generateKeyId()
    const at = new Date('2026-01-01T00:00:00Z')
    this.records.set(hashApiKey(key), {
      id,
      tier,
      status,
      name: `test ${tier}`,
      keyHint: key.slice(-4),
      rotatedTo: null,
      accountId: id,
      expiresAt: null,
      lastUsedAt: null,
      createdAt: at,
      updatedAt: at,
    })
    return { key, id }
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    this.lookups += 1
    if (this.failure) throw this.failure
    return this.records.get(hash) ?? null
  }

  async findById(id: string): Promise<ApiKeyRecord | null> {
    this.lookups += 1
    if (this.failure) throw this.failure
    return [...this.records.values()].find((record) => record.id === id) ?? null
  }

  async tiers(): Promise<Tier[]> {
    if (this.failure) throw this.failure
    return [...this.tierList]
  }

  /** The record of a key id, as KeyAccounts.findById reads it. */
  byId(id: string): ApiKeyRecord | null {
    return [...this.records.values()].find((record) => record.id === id) ?? null
  }
}

/**
 * KeyAccounts over a FakeKeyDirectory's records, for what the router and services need of it: finding
 * a key. Rotating belongs to the database (tested against PostgreSQL) and refuses here.
 */
export function keyAccountsOver(directory: FakeKeyDirectory): KeyAccounts {
  return {
    findById: async (id) => directory.byId(id),
    rotate: () => Promise.reject(new Error('not in the fake')),
  }
}

/**
 * The audit log in memory, with the store's paging: an account's events newest first (appended later =
 * newer), after the event `after`, or null when `after` is not one of the account's.
 */
export class MemoryAuditLog implements AuditLog {
  readonly events: AuditEvent[] = []
  private sequence = 0

  constructor(private readonly now: () => Date = () => new Date()) {}

  async append(event: NewAuditEvent): Promise<void> {
    const id = `evt_${(++this.sequence).toString(16).padStart(24, '0')}`
    this.events.push({ ...event, id, createdAt: this.now() })
  }

  async page(accountId: string, limit: number, after: string | null): Promise<AuditEvent[] | null> {
    const own = this.events.filter((event) => event.accountId === accountId).reverse()
    const start = after === null ? 0 : own.findIndex((event) => event.id === after) + 1
    if (after !== null && start === 0) return null
    return own.slice(start, start + limit)
  }
}

/** A KeyService over a fake directory with no recorded usage. */
export function keyServiceOver(directory: FakeKeyDirectory, now: () => Date = () => new Date()): KeyService {
  const noUsage: UsageSource = { history: async () => [], lastUseOf: () => null }
  return new KeyService(keyAccountsOver(directory), noUsage, TEST_ADDRESS_HASH_KEY, now)
}

/** The real access control (authenticator + daily quota) over a fake key directory and an in-memory quota. */
export function accessControlOver(
  directory: KeyDirectory,
  now: () => Date = () => new Date(),
): AccessControl {
  return new AccessControl(
    new Authenticator(directory, { keyCacheMs: 0 }),
    new QuotaGuard(new MemoryQuotaStore(), now),
  )
}

export interface LogEntry {
  level: 'error' | 'warn' | 'info' | 'debug'
  fields: Record<string, unknown>
  message: string | undefined
}

/** A Logger that keeps its entries: for proving that a failure was (or was not) logged. */
export function recordingLogger(): { logger: Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = []
  const record = (level: LogEntry['level']) => (fields: Record<string, unknown>, message?: string) => {
    entries.push({ level, fields, message })
  }
  const logger = {
    error: record('error'),
    warn: record('warn'),
    info: record('info'),
    debug: record('debug'),
  }
  // Only the methods above are reached by the code under test.
  return { logger: logger as unknown as Logger, entries }
}

/** The front door's per-request context, as src/http opens it. */
export function requestContext(requestId = 'req-test-1', route = 'test'): RequestContext {
  return createRequestContext(requestId, route)
}
