import { type ExplorerApi, ExplorerApiError } from './api.ts'
import type { ExplorerMap } from './map.ts'
import type { ModelSelect } from './model-select.ts'
import type { ViewState } from './state.ts'

/** What a panel needs of the page around it. */
export interface PanelHost {
  api: ExplorerApi
  map: ExplorerMap
  /** The view the controls describe: species, method, horizon, climate, point, open panel, map layer. */
  view(): ViewState
  hasKey(): boolean
  /** The model versions the key may use, and the one answers come from. */
  models: ModelSelect
  /** An error in the page's words: an API error as below, anything else as the API out of reach. */
  messageFor(error: unknown): string
}

export const API_UNREACHABLE = 'The API could not be reached. Check your connection and try again.'

/** Answers that are about the chosen point, not failures, read as plain messages. */
export function apiMessage(error: unknown, searchRadiusKm: number): string {
  if (!(error instanceof ExplorerApiError)) return API_UNREACHABLE
  switch (error.code) {
    case 'outside_coverage':
      return 'Outside coverage: the model covers Oregon and Washington (outlined in green). Choose a point inside.'
    case 'no_nearby_data':
      return `No nearby data: no forest site within ${searchRadiusKm} km of this point (urban, farmland or water). Choose a forested point.`
    case 'invalid_model_version':
      return `${error.message}. Choose another model version above.`
    case 'missing_api_key':
    case 'invalid_api_key':
      return `Your API key was not accepted: ${error.message}`
    default:
      return error.requestId ? `${error.message} (request ${error.requestId})` : error.message
  }
}
