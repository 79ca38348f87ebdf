import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // One graphql realm: Node loads graphql's CJS build for node_modules (Pothos, yoga), so src must too.
  resolve: {
    alias: [
      {
        find: /^graphql$/,
        replacement: fileURLToPath(new URL('./node_modules/graphql/index.js', import.meta.url)),
      },
    ],
  },
  test: {
    include: [
      'src/**/*.test.ts',
      'bench/**/*.test.ts',
      'test/**/*.test.ts',
      'clients/typescript/test/**/*.test.ts',
    ],
    // Stops the run at once, with one line, when PostgreSQL or Redis is not there.
    globalSetup: ['./test/support/preflight.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
})
