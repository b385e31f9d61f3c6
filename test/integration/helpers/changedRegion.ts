/**
 * Where two texts differ: the span of `before` between their common prefix and common suffix
 * (`start`..`end`), and what `after` has there instead. A pure insertion has start === end.
 */
export function changedRegion(before: string, after: string): { start: number; end: number; inserted: string } {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let suffix = 0;
  while (suffix < before.length - start && suffix < after.length - start && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return { start, end: before.length - suffix, inserted: after.slice(start, after.length - suffix) };
}
