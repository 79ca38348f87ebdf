import type { Horizon, ModelInfo, PlantingMethod, Species } from '../../types.ts'
import { BASELINE_PERIOD, CLIMATE_FUTURES, type ClimateFuture } from '../climate.ts'
import type { AppliedTreatments } from '../treatment-types.ts'

/** What one survival raster shows: everything but the site table it was drawn from. */
export interface RasterSubject {
  species: Species
  method: PlantingMethod
  horizon: Horizon
  /** null: today's climate. */
  climate: ClimateFuture | null
  model: ModelInfo
  /** Establishment treatments at every pixel; absent or null: untreated. */
  treatments?: AppliedTreatments | null
}

/** The treatments with an effect, as `name=value` (untreated: none). */
function treatedValues(subject: RasterSubject): string[] {
  return (subject.treatments?.effects ?? []).map((effect) => `${effect.treatment}=${effect.value}`)
}

/** The file name a download is offered under, e.g. survival-PSME-manual-5y-2041-2070-ssp245.tif. */
export function rasterFileName(subject: RasterSubject): string {
  const climate = subject.climate ? `-${subject.climate.period}-${subject.climate.scenario}` : ''
  const treated = (subject.treatments?.effects ?? []).map((effect) => `-${effect.value}`).join('')
  return `survival-${subject.species.code}-${subject.method}-${subject.horizon}y${climate}${treated}.tif`
}

/**
 * The GeoTIFF's metadata items (GDAL_METADATA): what a pixel is and what it was made from, so a file
 * read long after its download still says so.
 */
export function rasterMetadata(
  subject: RasterSubject,
  made: { dataVersion: string | null; searchRadiusKm: number; resolution: number; nodata: number },
): Record<string, string> {
  const { species, method, horizon, climate, model } = subject
  const treated = treatedValues(subject)
  return {
    pixel:
      `Probability (0 to 1) that a ${species.commonName} planted by the ${method} method is alive ` +
      `${horizon} years later, at the data site nearest the pixel centre within the search radius ` +
      `(${made.searchRadiusKm} km); nodata (${made.nodata}) beyond it and outside Oregon and Washington`,
    species_code: species.code,
    species_name: `${species.commonName} (${species.scientificName})`,
    planting_method: method,
    horizon_years: String(horizon),
    climate: climate ? `${climate.period} ${climate.scenario}` : `today (${BASELINE_PERIOD})`,
    ...(climate ? { climate_data_version: CLIMATE_FUTURES.dataVersion } : {}),
    ...(treated.length > 0 && subject.treatments
      ? { treatments: treated.join(', '), treatments_data_version: subject.treatments.dataVersion }
      : {}),
    model_version: model.version,
    model: `${model.series} ${model.version} (${model.codename})`,
    site_data_version: made.dataVersion ?? 'none',
    search_radius_km: String(made.searchRadiusKm),
    nearest_site: 'nearest data site within the search radius; nodata beyond it',
    resolution_degrees: String(made.resolution),
    nodata: String(made.nodata),
    source: 'Survival Prediction API, GET /v1/rasters/survival.tif',
  }
}
