import { FOREST_ZONES, type ForestZone, type SiteAttributes, type UsState } from '../types.ts'

/**
 * Site attributes in an object of one class, for code that writes a site's attributes into an object it
 * reuses or that builds sites of its own. The numbers start as NaN, so V8 lays every field out as a double
 * from the first object on: a fraction written later changes no field's layout (an object literal whose
 * first values were whole numbers would move to a new layout at the first fraction, object by object).
 */
export class SiteAttributeFields implements SiteAttributes {
  zone: ForestZone = FOREST_ZONES[0]
  state: UsState | undefined = undefined
  elevationM = Number.NaN
  slopeDeg = Number.NaN
  aspectDeg = Number.NaN
  heatLoadIndex = Number.NaN
  soilDepthCm = Number.NaN
  rockFractionPct = Number.NaN
  vegetationCoverPct = Number.NaN
  annualPrecipMm = Number.NaN
  summerWaterDeficitMm = Number.NaN
  growingSeasonFrostDays = Number.NaN
  browsePressureIndex = Number.NaN
}
