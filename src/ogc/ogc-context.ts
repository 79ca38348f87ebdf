import type { AccessControl } from '../access/auth/access-control.ts'
import type { Caller } from '../access/caller.ts'
import type { FeatureCollections } from '../domain/features/feature-collections.ts'
import type { ModelRegistry } from '../domain/models/model-registry.ts'

/** What an OGC API route is given, and what it answers. */
export interface OgcDeps {
  access: AccessControl
  features: FeatureCollections
  models: ModelRegistry
  /** The service's public address (PUBLIC_URL) for the links; else the request's Host. */
  publicUrl?: string
  now?: () => Date
}

export interface OgcContext {
  url: URL
  params: Record<string, string>
  /** The service's address, for absolute links. */
  base: string
  deps: OgcDeps
  now: Date
}

export interface OgcResponse {
  body: unknown
  contentType: string
  headers?: Record<string, string>
}

export interface OgcRoute {
  path: string
  /** Data: a key is required and the request is counted. */
  keyed: boolean
  /** Checks made before the key (an unknown collection or parameter costs nothing). */
  check?(context: OgcContext): void
  handle(context: OgcContext & { caller: Caller | null }): Promise<OgcResponse>
}
