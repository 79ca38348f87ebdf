export function mean(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0) / values.length
}

function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value)
  const result = new Array<number>(values.length)
  let start = 0
  while (start < order.length) {
    let end = start
    while (end + 1 < order.length && order[end + 1]?.value === order[start]?.value) end++
    const averageRank = (start + end) / 2
    for (let k = start; k <= end; k++) result[order[k]?.index ?? 0] = averageRank
    start = end + 1
  }
  return result
}

function pearson(a: readonly number[], b: readonly number[]): number {
  const meanA = mean(a)
  const meanB = mean(b)
  let covariance = 0
  let varianceA = 0
  let varianceB = 0
  a.forEach((x, i) => {
    const y = b[i] ?? 0
    covariance += (x - meanA) * (y - meanB)
    varianceA += (x - meanA) ** 2
    varianceB += (y - meanB) ** 2
  })
  return covariance / Math.sqrt(varianceA * varianceB)
}

export function spearman(a: readonly number[], b: readonly number[]): number {
  return pearson(ranks(a), ranks(b))
}

/** Mean of `outcome` over the top quartile of `driver` minus its mean over the bottom quartile. */
export function quartileEffect(driver: readonly number[], outcome: readonly number[]): number {
  const sorted = driver
    .map((value, i) => ({ value, outcome: outcome[i] ?? 0 }))
    .sort((a, b) => a.value - b.value)
  const quarter = Math.floor(sorted.length / 4)
  const bottom = sorted.slice(0, quarter).map((entry) => entry.outcome)
  const top = sorted.slice(-quarter).map((entry) => entry.outcome)
  return mean(top) - mean(bottom)
}
