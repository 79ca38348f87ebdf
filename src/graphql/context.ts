import type { Caller } from '../auth/authenticator.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { HealthMonitor } from '../domain/health.ts'
import type { PredictionService } from '../domain/prediction-service.ts'
import type { RequestContext } from '../observability/request-context.ts'

/** What every resolver and plugin can reach. */
export interface GraphQLContext {
  /** The request as the front door opened it: id, route, and what the layers learn about it. */
  request: RequestContext
  /** The X-API-Key header as sent (checked by the access-control plugin; never logged). */
  apiKey: string | undefined
  /** Set by the access-control plugin for operations that need a key; null for public ones (health, introspection). */
  caller: Caller | null
  predictions: PredictionService
  catalogue: Catalogue
  health: HealthMonitor
}
