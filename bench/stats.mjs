// The figures every bench reports: medians with ranges, percentiles of latencies, one decimal.

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export const range = (values) => [Math.min(...values), Math.max(...values)];

/** The nearest-rank p-th percentile. */
export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

export const round1 = (v) => Math.round(v * 10) / 10;
