/**
 * The cells and the aligned table the RTP simulator CLI (`slots/rtp-cli.ts`) prints for every family
 * (slots, native, crash): RTPs as percentages, the measured 99% confidence interval and whether the
 * stored RTP lies inside it.
 */

/** A share of the stake as a percentage with three decimals (0.97 -> '97.000'). */
export const pct = (x: number): string => (x * 100).toFixed(3);

/** The 'ci99' and 'inside' cells: the measured interval, and whether the stored RTP lies in it. */
export function ciCells(stored: number, ci99: readonly [number, number]): [string, string] {
  return [`[${pct(ci99[0])}, ${pct(ci99[1])}]`, stored >= ci99[0] && stored <= ci99[1] ? 'yes' : 'no'];
}

/** The rows under their header, columns padded to their widest cell and split by ' | '. */
export function textTable(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(fmt)].join('\n');
}
