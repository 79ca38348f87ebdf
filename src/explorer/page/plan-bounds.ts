/** The API's bounds: planted density up to 5,000 trees per acre, confidence 0.5–0.99. */
export const TREES_PER_ACRE_MAX = 5000
export const TREES_PER_HECTARE_PER_ACRE = 2.471
export const CONFIDENCE_MIN_PERCENT = 50
export const CONFIDENCE_MAX_PERCENT = 99
