import { type GraphQLResolveInfo, Kind, type SelectionNode } from 'graphql'
import { CELL_KM_MAX, CELL_KM_MIN, catalogueCode, cellKm, horizon } from '../../domain/input-rules.ts'
import type { SurvivalCell, SurvivalMap, SurvivalMapRequest } from '../../domain/prediction-types.ts'
import { builder } from './builder.ts'
import { PlantingMethodEnum, SpeciesRef } from './catalogue.ts'
import { ClimateInput } from './climate.ts'
import { MODEL_VERSION_ARG, ModelRef, modelVersionRule, pinnedModel } from './models.ts'
import { AppliedTreatmentsRef, TREATMENTS_ARG, TreatmentsInput } from './treatments.ts'

/** Whether the field being resolved selects `name` among its own fields (fragments included). */
function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const seen = (selections: readonly SelectionNode[]): boolean =>
    selections.some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name
      if (selection.kind === Kind.INLINE_FRAGMENT) return seen(selection.selectionSet.selections)
      const fragment = info.fragments[selection.name.value]
      return fragment ? seen(fragment.selectionSet.selections) : false
    })
  return info.fieldNodes.some((node) => (node.selectionSet ? seen(node.selectionSet.selections) : false))
}

/** Default cell size of survivalMap, km: about the size of a county's forest district. */
const DEFAULT_CELL_KM = 25

const SurvivalCellRef = builder.objectRef<SurvivalCell>('SurvivalCell').implement({
  description: 'One H3 hexagon of a survival map: the survival of the sites inside it',
  fields: (t) => ({
    h3Index: t.exposeString('h3Index', { description: 'H3 index of the cell (15 hex digits)' }),
    latitude: t.exposeFloat('latitude', { description: 'Latitude of the cell centre, decimal degrees' }),
    longitude: t.exposeFloat('longitude', { description: 'Longitude of the cell centre, decimal degrees' }),
    boundary: t.field({
      type: t.listRef(t.listRef('Float')),
      description:
        'The cell outline as a closed GeoJSON ring: [longitude, latitude] pairs (GeoJSON order), the first pair repeated as the last (7 pairs for a hexagon, 6 for one of the 12 pentagons)',
      resolve: (c) => c.boundary,
    }),
    meanSurvival: t.exposeFloat('meanSurvival', {
      description: 'Mean survival probability over the sites in the cell, 0 to 1',
    }),
    minSurvival: t.exposeFloat('minSurvival', {
      description: 'Lowest survival probability of a site in the cell, 0 to 1',
    }),
    maxSurvival: t.exposeFloat('maxSurvival', {
      description: 'Highest survival probability of a site in the cell, 0 to 1',
    }),
    sites: t.exposeInt('sites', { description: 'Data points (sites) in the cell, at least 1' }),
    changeFromToday: t.float({
      nullable: true,
      description:
        'Under a future climate: meanSurvival minus the cell’s mean survival today (negative where survival is expected to fall); null for today’s map',
      resolve: (c) => c.changeFromToday,
    }),
  }),
})

const MappedClimateRef = builder.objectRef<NonNullable<SurvivalMap['climate']>>('MappedClimate').implement({
  description: 'The future climate a survival map was made for (a rounded synthesis; see climateScenarios)',
  fields: (t) => ({
    period: t.exposeString('period', { description: 'The future period, e.g. 2041-2070' }),
    scenario: t.exposeString('scenario', { description: 'The emission scenario, e.g. ssp245' }),
    dataVersion: t.exposeString('dataVersion', { description: 'Version of the climate data' }),
  }),
})

const SurvivalMapRef = builder.objectRef<SurvivalMap>('SurvivalMap').implement({
  description:
    'One species, planted one way, at one horizon: the model at every site of the data set, aggregated into H3 hexagons',
  fields: (t) => ({
    species: t.field({ type: SpeciesRef, description: 'The species mapped', resolve: (m) => m.species }),
    plantingMethod: t.field({
      type: PlantingMethodEnum,
      description: 'How the trees are established',
      resolve: (m) => m.plantingMethod,
    }),
    horizonYears: t.exposeInt('horizonYears', { description: 'Years after planting: 1, 3 or 5' }),
    cellKm: t.exposeFloat('cellKm', { description: 'The cell size asked for, km' }),
    h3Resolution: t.exposeInt('h3Resolution', {
      description:
        'The H3 resolution used: the one whose average hexagon’s size (√ of its average area) is nearest cellKm by ratio (10–25.9 km → 5, √area 15.9 km; to 68.4 km → 4, 42.1 km; to 181 km → 3, 111 km; above → 2, 295 km)',
    }),
    siteCount: t.exposeInt('siteCount', {
      description: 'Sites evaluated: every data point of the data set (the sum of cells.sites)',
    }),
    cells: t.field({
      type: [SurvivalCellRef],
      description: 'The cells holding at least one site, ordered by h3Index',
      // The change against today costs a second pass over every site: only when it is selected.
      resolve: (m, _args, _ctx, info) =>
        m.cellsWithChange && selectsField(info, 'changeFromToday') ? m.cellsWithChange() : m.cells,
    }),
    climate: t.field({
      type: MappedClimateRef,
      nullable: true,
      description: 'The future climate mapped (the climate argument); null for today’s climate',
      resolve: (m) => m.climate ?? null,
    }),
    treatments: t.field({
      type: AppliedTreatmentsRef,
      nullable: true,
      description: 'The treatments applied at every site (the treatments argument); null when untreated',
      resolve: (m) => m.treatments ?? null,
    }),
    model: t.field({ type: ModelRef, description: 'The model that answered', resolve: (m) => m.model }),
    generatedAt: t.field({
      type: 'DateTime',
      description: 'When the map was served (the values are cached until the site data change)',
      resolve: (m) => m.generatedAt,
    }),
  }),
})

builder.queryFields((t) => ({
  survivalMap: t.field({
    type: SurvivalMapRef,
    nullable: true,
    description:
      'Where does this species survive best? The model at every site of the data set, for one planting method and horizon, aggregated into H3 hexagons of about cellKm. Counts as one request, and as one site prediction against the batch size. At most 10 calls a minute per key (the server setting SURVIVAL_MAP_PER_MINUTE; each alias counts): beyond that rate_limit_exceeded (HTTP 429) with the wait in extensions.retryAfterSeconds and a Retry-After header. The per-site values are cached in the server until the site data change, so a map asked for again answers quickly',
    args: {
      speciesCode: t.arg.string({
        required: true,
        description: 'Four-letter species code, e.g. PSME (see `species`)',
        validate: { schema: catalogueCode },
      }),
      plantingMethod: t.arg({
        type: PlantingMethodEnum,
        required: true,
        description: 'How the trees are established',
      }),
      horizon: t.arg.int({
        required: true,
        description: 'Years after planting: 1, 3 or 5',
        validate: { schema: horizon },
      }),
      cellKm: t.arg.float({
        required: false,
        defaultValue: DEFAULT_CELL_KM,
        description: `Wanted cell size, km, ${CELL_KM_MIN} to ${CELL_KM_MAX}; the nearest H3 resolution is used (see h3Resolution)`,
        validate: { schema: cellKm },
      }),
      climate: t.arg({
        type: ClimateInput,
        required: false,
        description:
          'The climate to map; absent or null: today’s. Under a future one each cell also gives changeFromToday (the map of today is computed too, and cached like any other)',
      }),
      treatments: t.arg({
        type: TreatmentsInput,
        required: false,
        description: `${TREATMENTS_ARG}. Applied at every site; a treated map is cached apart from the untreated one`,
      }),
      modelVersion: t.arg.string({
        required: false,
        description: MODEL_VERSION_ARG,
        validate: modelVersionRule,
      }),
    },
    resolve: async (_root, args, ctx) =>
      ctx.maps.map(
        { ...args, cellKm: args.cellKm ?? DEFAULT_CELL_KM } as SurvivalMapRequest,
        await pinnedModel(ctx, args.modelVersion),
      ),
  }),
}))
