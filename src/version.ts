/** Release of the public API (the API contract's versioning), reported by GET /v1/health. */
export const API_VERSION = '1.0.0'
export const COVERAGE_REGIONS = ['pnw'] as const
