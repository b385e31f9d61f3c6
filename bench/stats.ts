/** Small statistics helpers for the benchmarks: every figure is reported beside its baseline. */

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function ms(value: number): string {
  return `${value.toFixed(2)} ms`;
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** High-resolution milliseconds. */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** One line of the printed table: a figure beside the baseline measured in the same run. */
export interface Row {
  case: string;
  value: string;
  baseline: string;
  ratio: string;
}

export function ratio(value: number, baseline: number): string {
  const r = value / baseline;
  return `${r >= 10 ? r.toFixed(0) : r >= 0.1 ? r.toFixed(2) : r.toFixed(3)}×`;
}
