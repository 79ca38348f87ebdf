import { type DocumentNode, parse, validate } from 'graphql'
import { schema } from '../graphql/schema.ts'

/** The fixed GraphQL documents behind /v1, parsed and validated once at start-up. */
const SITE =
  'fragment RestSite on Site { latitude longitude matchedLatitude matchedLongitude matchDistanceKm region }'
const HORIZON = `fragment RestHorizon on HorizonPrediction {
  horizonYears survivalProbability riskFactors { factor impact magnitude }
}`
const MODEL = 'fragment RestModel on Model { version codename series }'
const PREDICTION = `fragment RestPrediction on Prediction {
  site { ...RestSite }
  speciesCode speciesCommonName plantingMethod
  predictions { ...RestHorizon }
  model { ...RestModel }
  generatedAt
} ${SITE} ${HORIZON} ${MODEL}`

const SOURCES = {
  predict: `query RestPredict($input: PredictionInput!) { predict(input: $input) { ...RestPrediction } } ${PREDICTION}`,
  compare: `query RestCompare($input: ComparisonInput!) {
    compareMethods(input: $input) {
      site { ...RestSite }
      species { code commonName }
      manual { ...RestHorizon }
      droneSeeded { ...RestHorizon }
      methodDifferential { horizonYears manual droneSeeded difference }
      model { ...RestModel }
      generatedAt
    }
  } ${SITE} ${HORIZON} ${MODEL}`,
  batch: `query RestBatch($sites: [BatchSiteInput!]!) {
    predictBatch(sites: $sites) { index prediction { ...RestPrediction } error { code message details } }
  } ${PREDICTION}`,
  species: `query RestSpecies($group: SpeciesGroup, $search: String, $zone: String) {
    species(group: $group, search: $search, zone: $zone) {
      code commonName scientificName group elevationMinM elevationMaxM precipitationMinMm precipitationMaxMm
      droughtTolerance shadeTolerance frostTolerance rangeZones notes
    }
  }`,
  methods: 'query RestMethods { plantingMethods { id name description } }',
  coverage: 'query RestCoverage { coverage { region searchRadiusKm geojson } }',
} as const

export type RestOperation = keyof typeof SOURCES

function compile(source: string): DocumentNode {
  const document = parse(source)
  const errors = validate(schema, document)
  if (errors.length) throw new Error(`REST operation does not match the schema: ${errors[0]?.message}`)
  return document
}

export const REST_DOCUMENTS: Record<RestOperation, DocumentNode> = Object.fromEntries(
  Object.entries(SOURCES).map(([name, source]) => [name, compile(source)]),
) as Record<RestOperation, DocumentNode>
