import type DataLoader from 'dataloader'
import type { Caller } from '../auth/authenticator.ts'
import type { Sql } from '../db/connect.ts'
import type { NearestSite } from '../db/sites.ts'
import type { Coordinates, PredictionService } from '../domain/predictions.ts'

/** What every resolver can reach. The loader lives for one request only. */
export interface GraphQLContext {
  requestId: string
  /** Set by the auth plugin for operations that need a key; null for public ones (health, introspection). */
  caller: Caller | null
  sql: Sql
  searchRadiusKm: number
  predictions: PredictionService
  nearestSite: DataLoader<Coordinates, NearestSite | null, string>
}
