const RADIANS_PER_DEGREE = Math.PI / 180

/** McCune & Keon (2002) heat load, equation 3: latitude, slope and aspect folded about the NE–SW axis. */
function mccuneKeonHeatLoad(latitudeDeg: number, slopeDeg: number, aspectDeg: number): number {
  const latitude = latitudeDeg * RADIANS_PER_DEGREE
  const slope = slopeDeg * RADIANS_PER_DEGREE
  const folded = Math.abs(180 - Math.abs(aspectDeg - 225)) * RADIANS_PER_DEGREE
  return Math.exp(
    -1.467 +
      1.582 * Math.cos(latitude) * Math.cos(slope) -
      1.5 * Math.cos(folded) * Math.sin(slope) * Math.sin(latitude) -
      0.262 * Math.sin(latitude) * Math.sin(slope) +
      0.607 * Math.sin(folded) * Math.sin(slope),
  )
}

/** Heat load extremes over the data set's domain (latitude 42–49°, slope 0–50°), found by a 1° scan. */
function heatLoadExtremes(): { min: number; max: number } {
  let min = Number.POSITIVE_INFINITY
  let max = Number.NEGATIVE_INFINITY
  for (const latitude of [42, 49]) {
    for (let slope = 0; slope <= 50; slope++) {
      for (let aspect = 45; aspect <= 225; aspect++) {
        const value = mccuneKeonHeatLoad(latitude, slope, aspect)
        min = Math.min(min, value)
        max = Math.max(max, value)
      }
    }
  }
  return { min, max }
}

const { min: HEAT_LOAD_MIN, max: HEAT_LOAD_MAX } = heatLoadExtremes()

/** Heat load index rescaled to 0 (steep, cool north-east slope) – 1 (hottest south-west slope). */
export function heatLoadIndex(latitudeDeg: number, slopeDeg: number, aspectDeg: number): number {
  const raw = mccuneKeonHeatLoad(latitudeDeg, slopeDeg, aspectDeg)
  return Math.min(1, Math.max(0, (raw - HEAT_LOAD_MIN) / (HEAT_LOAD_MAX - HEAT_LOAD_MIN)))
}
