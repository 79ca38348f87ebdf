import type { HealthReport } from '../../domain/health.ts'
import { COVERAGE_REGION, coverageGeoJson } from '../../geo/coverage.ts'
import { builder } from '../builder.ts'
import { ModelRef } from './catalog.ts'

const HealthRef = builder.objectRef<HealthReport>('Health').implement({
  description: 'API status (no key needed)',
  fields: (t) => ({
    status: t.exposeString('status', {
      description: '`healthy` when operational; `degraded` or `unavailable` otherwise',
    }),
    version: t.exposeString('version', { description: 'API version' }),
    model: t.field({ type: ModelRef, resolve: (h) => h.model }),
    coverageRegions: t.exposeStringList('coverage_regions'),
    database: t.exposeString('database', { description: '`connected` when the data store answers' }),
    timestamp: t.exposeString('timestamp'),
  }),
})

const CoverageRef = builder.objectRef<{ region: string; searchRadiusKm: number }>('Coverage').implement({
  fields: (t) => ({
    region: t.exposeString('region'),
    searchRadiusKm: t.exposeFloat('searchRadiusKm', {
      description: 'A point farther than this from every data point answers no_nearby_data',
    }),
    geojson: t.field({
      type: 'JSON',
      description: 'The covered area as an RFC 7946 FeatureCollection',
      resolve: () => coverageGeoJson(),
    }),
  }),
})

builder.queryFields((t) => ({
  health: t.field({
    type: HealthRef,
    resolve: (_root, _args, ctx) => ctx.health.check(),
  }),
  coverage: t.field({
    type: CoverageRef,
    resolve: (_root, _args, ctx) => ({ region: COVERAGE_REGION, searchRadiusKm: ctx.searchRadiusKm }),
  }),
}))
