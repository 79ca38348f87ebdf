/** Numerically stable logistic function. */
export function sigmoid(logOdds: number): number {
  if (logOdds >= 0) return 1 / (1 + Math.exp(-logOdds))
  const odds = Math.exp(logOdds)
  return odds / (1 + odds)
}

/** Inverse of sigmoid, accurate for probabilities close to 0. */
export function logit(probability: number): number {
  return Math.log(probability) - Math.log1p(-probability)
}
