import type { AccessControl } from '../access/auth/access-control.ts'
import type { Config } from '../config/config.ts'
import type { Database } from '../db/connect.ts'
import { sitePages } from '../db/site-ports.ts'
import { FeatureCollections } from '../domain/features/feature-collections.ts'
import type { ModelRegistry } from '../domain/models/model-registry.ts'
import { RasterReadCounter } from '../domain/rasters/raster-reads.ts'
import { SurvivalRasterService } from '../domain/rasters/survival-raster-service.ts'
import type { SurvivalMapService } from '../domain/survival-map.ts'
import type { Logger } from '../logging/logger.ts'
import type { Metrics } from '../observability/metrics.ts'
import { createOgcHandler } from '../ogc/ogc-handler.ts'
import { encodeCloudOptimizedGeoTiff } from '../raster-files/cloud-optimized-geotiff.ts'

/** What a GIS reads: the survival rasters (REST) and OGC API – Features (/ogc), both drawn from the survival map's sites. */
export function wireGis(options: {
  config: Pick<Config, 'SEARCH_RADIUS_KM' | 'DB_QUERY_TIMEOUT_MS'> & Partial<Pick<Config, 'PUBLIC_URL'>>
  database: Database
  metrics: Metrics
  logger: Logger
  access: AccessControl
  models: ModelRegistry
  maps: SurvivalMapService
  now: () => Date
}) {
  const { config, database, metrics, logger, access, models, maps, now } = options
  return {
    rasters: {
      service: new SurvivalRasterService(maps, encodeCloudOptimizedGeoTiff, {
        searchRadiusKm: config.SEARCH_RADIUS_KM,
      }),
      reads: new RasterReadCounter(),
    },
    ogc: createOgcHandler(
      {
        access,
        features: new FeatureCollections(sitePages(database.reads, config, metrics), maps),
        models,
        publicUrl: config.PUBLIC_URL,
        now,
      },
      logger,
    ),
  }
}
