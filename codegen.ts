/**
 * GraphQL Code Generator configuration. The GraphQL gateway prints schema/schema.graphql from the
 * Pothos builder; typed documents for the operations the REST adapter and tests use are generated
 * from it. Kept dependency-free until that work lands (see the GraphQL gateway issue).
 */
const config = {
  schema: 'schema/schema.graphql',
  documents: ['src/**/*.graphql', 'test/**/*.graphql'],
  generates: {
    'src/graphql/generated/': { preset: 'client' },
  },
}

export default config
