import type { Admission } from '../auth/access-control.ts'
import type { Caller } from '../auth/authenticator.ts'
import type { HealthMonitor } from '../domain/health.ts'
import type { NearestSiteLookup, PredictionService } from '../domain/predictions.ts'

/** What every resolver can reach. */
export interface GraphQLContext {
  requestId: string
  /** Set by the auth plugin for operations that need a key; null for public ones (health, introspection). */
  caller: Caller | null
  /** Present when the request was already admitted (the REST adapter admits before reading the body). */
  admission?: Admission
  health: HealthMonitor
  searchRadiusKm: number
  predictions: PredictionService
  /** Process-wide batching: one SQL statement per tick, nothing cached. */
  nearestSite: NearestSiteLookup
}
