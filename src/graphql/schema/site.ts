import type { MatchedSite } from '../../domain/prediction-types.ts'
import { siteClassOf } from '../../domain/site-class.ts'
import { builder } from './builder.ts'

export const SiteRef = builder.objectRef<MatchedSite>('Site').implement({
  description:
    'The requested point and the nearest synthetic forest data point that answered it, with that point’s attributes (docs/data-dictionary.md)',
  fields: (t) => ({
    latitude: t.exposeFloat('latitude', { description: 'Requested latitude, decimal degrees (WGS84)' }),
    longitude: t.exposeFloat('longitude', { description: 'Requested longitude, decimal degrees (WGS84)' }),
    matchedLatitude: t.exposeFloat('matchedLatitude', {
      description: 'Latitude of the data point that answered, decimal degrees',
    }),
    matchedLongitude: t.exposeFloat('matchedLongitude', {
      description: 'Longitude of the data point that answered, decimal degrees',
    }),
    matchDistanceKm: t.exposeFloat('matchDistanceKm', {
      description: 'Great-circle distance from the requested point to the matched point, km',
    }),
    region: t.exposeString('region', { description: 'Coverage region of the point: pnw' }),
    dataVersion: t.string({
      nullable: true,
      description:
        'The site data version the matched point came from, e.g. sites_3f9a1c2e4b5d (docs/site-data.md); null only before any version is active',
      resolve: (s) => s.dataVersion,
    }),
    siteId: t.int({ description: 'Id of the matched data point', resolve: (s) => s.attributes.id }),
    forestRegion: t.string({
      description: 'Forest region of the matched point, e.g. oregon_coast_range',
      resolve: (s) => s.attributes.regionId,
    }),
    zone: t.string({
      description: 'Ecological zone of the matched point, as in Species.rangeZones',
      resolve: (s) => s.attributes.zone,
    }),
    state: t.string({
      nullable: true,
      description:
        'State of the matched point (OR or WA), as in Species.rangeStates; null only on a database not yet re-seeded since states were added',
      resolve: (s) => s.attributes.state ?? null,
    }),
    siteClass: t.string({
      description:
        'Modelled Oregon cubic-foot site class of the matched point (I-III, IV-V or VI): synthetic, derived from its attributes (docs/data-dictionary.md → site class)',
      resolve: (s) => siteClassOf(s.attributes),
    }),
    elevationM: t.int({
      description: 'Elevation at the matched site, metres',
      resolve: (s) => s.attributes.elevationM,
    }),
    slopeDeg: t.float({
      description: 'Slope at the matched site, 0–60 degrees',
      resolve: (s) => s.attributes.slopeDeg,
    }),
    aspectDeg: t.float({
      description: 'Downslope direction at the matched site, 0–360 degrees clockwise from north',
      resolve: (s) => s.attributes.aspectDeg,
    }),
    heatLoadIndex: t.float({
      description:
        'Heat load from slope and aspect, 0 (cool, north-facing) to 1 (hot, steep south-west facing)',
      resolve: (s) => s.attributes.heatLoadIndex,
    }),
    soilDepthCm: t.int({
      description: 'Soil depth at the matched site, cm',
      resolve: (s) => s.attributes.soilDepthCm,
    }),
    rockFractionPct: t.float({
      description: 'Share of coarse fragments and surface rock at the matched site, 0–100 %',
      resolve: (s) => s.attributes.rockFractionPct,
    }),
    vegetationCoverPct: t.float({
      description: 'Cover of competing grass, forbs and shrubs at planting, 0–100 %',
      resolve: (s) => s.attributes.vegetationCoverPct,
    }),
    annualPrecipMm: t.int({
      description: 'Mean annual precipitation at the matched site, mm',
      resolve: (s) => s.attributes.annualPrecipMm,
    }),
    summerWaterDeficitMm: t.int({
      description:
        'Climatic summer water deficit (potential minus actual evapotranspiration) at the matched site, mm',
      resolve: (s) => s.attributes.summerWaterDeficitMm,
    }),
    growingSeasonFrostDays: t.int({
      description: 'Days in May–September with a minimum temperature at or below −2 °C at the matched site',
      resolve: (s) => s.attributes.growingSeasonFrostDays,
    }),
    browsePressureIndex: t.float({
      description:
        'Browse, clipping and seed predation pressure (deer, elk, mountain beaver, gophers, rodents), 0 (none) to 1 (severe)',
      resolve: (s) => s.attributes.browsePressureIndex,
    }),
  }),
})
