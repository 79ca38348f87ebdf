import type { CoverageInfo } from '../../domain/catalogue.ts'
import type { HealthReport, ReplicaHealth } from '../../domain/health.ts'
import { builder } from './builder.ts'
import { ModelRef } from './models.ts'

const ReplicaHealthRef = builder.objectRef<ReplicaHealth>('ReplicaHealth').implement({
  description: 'A PostgreSQL read replica at its last background check',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'host:port/database (never credentials)' }),
    state: t.exposeString('state', {
      description:
        '`healthy` (in rotation), `lagging` (replay behind by more than the limit), `down` (unreachable, failing queries or not a standby) or `starting`',
    }),
    lagMs: t.exposeFloat('lag_ms', {
      nullable: true,
      description: 'Replay lag behind the primary, ms; null while it cannot be measured',
    }),
  }),
})

const HealthRef = builder.objectRef<HealthReport>('Health').implement({
  description: 'API status (no key needed)',
  fields: (t) => ({
    status: t.exposeString('status', {
      description:
        '`healthy` when operational; `degraded` (quotas kept per instance) or `unavailable` otherwise',
    }),
    version: t.exposeString('version', { description: 'API version, e.g. 1.0.0' }),
    model: t.field({
      type: ModelRef,
      description: 'The model answering predictions',
      resolve: (h) => h.model,
    }),
    coverageRegions: t.exposeStringList('coverage_regions', { description: 'Regions covered: pnw' }),
    database: t.exposeString('database', {
      description: '`connected` when the data store answers, else `disconnected`',
    }),
    replicas: t.field({
      type: [ReplicaHealthRef],
      description:
        'Read replicas (DATABASE_REPLICA_URLS); empty without them. One out of rotation leaves `status` as it is: the primary answers its reads',
      resolve: (h) => h.replicas ?? [],
    }),
    timestamp: t.exposeString('timestamp', { description: 'When the status was taken, ISO 8601 UTC' }),
  }),
})

const CoverageRef = builder.objectRef<CoverageInfo>('Coverage').implement({
  description: 'Where the API answers: Oregon and Washington with their inland marine waters',
  fields: (t) => ({
    region: t.exposeString('region', { description: 'Region id: pnw' }),
    searchRadiusKm: t.exposeFloat('searchRadiusKm', {
      description: 'A point farther than this from every data point answers no_nearby_data, km',
    }),
    geojson: t.field({
      type: 'JSON',
      description: 'The covered area as an RFC 7946 FeatureCollection',
      resolve: (c) => c.geojson,
    }),
  }),
})

builder.queryFields((t) => ({
  health: t.field({
    type: HealthRef,
    description: 'API status: the same report as GET /v1/health (no key needed)',
    resolve: (_root, _args, ctx) => ctx.health.check(),
  }),
  coverage: t.field({
    type: CoverageRef,
    description: 'The area the API answers for',
    resolve: (_root, _args, ctx) => ctx.catalogue.coverage(),
  }),
}))
