import type { Config } from '../config/config.ts'
import { SPECIES } from '../domain/species.ts'
import { explorerAssetSource } from '../explorer/assets.ts'
import { createExplorerHandler, isExplorerPath } from '../explorer/handler.ts'
import type { Logger } from '../logging/logger.ts'
import { explorerCostDefaults } from './explorer-costs.ts'

/** The explorer's route for the HTTP server, or undefined when EXPLORER is off. */
export function explorerRoute(
  config: Pick<Config, 'SEARCH_RADIUS_KM'> & Partial<Pick<Config, 'EXPLORER'>>,
  demoKey: string | undefined,
  logger: Logger,
) {
  if (!(config.EXPLORER ?? true)) return undefined
  return {
    serves: isExplorerPath,
    handle: createExplorerHandler({
      assets: explorerAssetSource(),
      page: {
        species: SPECIES.map((species) => ({ code: species.code, commonName: species.commonName })),
        demoKey: demoKey ?? null,
        searchRadiusKm: config.SEARCH_RADIUS_KM,
        costDefaults: explorerCostDefaults(),
      },
      logger,
    }),
  }
}
