/**
 * The minor-unit exponents of the platform's currency registry (packages/money/src/registry.ts,
 * docs/currencies.md) that are not 2: ISO 4217's 0 and 3, and the crypto currencies'. The portal
 * keeps this copy because its pages import no workspace code at run time;
 * tools/testkit/src/money-floats.test.ts checks it equals the registry. (Intl's CLDR digits are
 * not ISO's: it says 0 for IQD, 2 for BTC.)
 */
export const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  BTC: 8,
  ETH: 9,
  LTC: 8,
  XRP: 6,
  SOL: 9,
  TRX: 6,
  BNB: 8,
  UDT: 6,
  UDC: 6,
  XDG: 8,
};

/** Minor-unit exponent of a currency as the platform keeps it: EUR 2, JPY 0, BHD 3, BTC 8, ETH 9. */
export function exponent(currency: string): number {
  return EXPONENTS[currency] ?? 2;
}

const group = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Integer minor units as a decimal amount, exactly (no floating point): 123456 EUR → "1,234.56". */
export function decimal(minor: number | string | bigint, currency: string): string {
  const v = BigInt(minor);
  const neg = v < 0n;
  const abs = (neg ? -v : v).toString();
  const e = exponent(currency);
  const whole = e === 0 ? abs : abs.length > e ? abs.slice(0, -e) : '0';
  const frac = e === 0 ? '' : abs.padStart(e, '0').slice(-e);
  return `${neg ? '−' : ''}${group(whole)}${frac ? `.${frac}` : ''}`;
}

/** An amount with its currency code: "1,234.56 EUR". */
export function money(minor: number | string | bigint, currency: string): string {
  return `${decimal(minor, currency)} ${currency}`;
}

/** Minor units as a number of currency units (for chart scales only, never for money shown as text). */
export function units(minor: number | string | bigint, currency: string): number {
  // money-float-ok: a bar's height on a chart, never an amount shown or computed with
  return Number(minor) / 10 ** exponent(currency);
}

/** An instant as UTC, to the second: "2026-11-22 02:43:34 UTC". */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Milliseconds between two instants, as "+12 ms" / "+1.4 s". */
export function offset(fromIso: string, toIso: string | null): string {
  if (!toIso) return '';
  const ms = new Date(toIso).getTime() - new Date(fromIso).getTime();
  return ms < 1000 ? `+${ms} ms` : `+${(ms / 1000).toFixed(1)} s`;
}

export function percent(ratio: number, digits = 2): string {
  return `${(ratio * 100).toFixed(digits)}%`;
}

/**
 * num / den as a number for a chart's scale (a payout ratio's bar), computed from the integer
 * totals to a millionth; null when den is not positive. Never an amount shown as text.
 */
export function ratioForChart(num: number | string | bigint, den: number | string | bigint): number | null {
  const d = BigInt(den);
  if (d <= 0n) return null;
  const millionths = (BigInt(num) * 1_000_000n) / d;
  return Number(millionths) / 1_000_000;
}

/**
 * `num / den` as a percentage with `digits` decimals, from the integers themselves (no float:
 * minor-unit totals can pass 2^53), rounded half up: percentOf(9650n, 10000n) → "96.50%".
 */
export function percentOf(num: number | string | bigint, den: number | string | bigint, digits = 2): string {
  const n = BigInt(num);
  const d = BigInt(den);
  if (d === 0n) return '—';
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const scaled = (an * 10n ** BigInt(digits + 2) * 2n + ad) / (2n * ad);
  const text = scaled.toString().padStart(digits + 1, '0');
  const whole = digits > 0 ? text.slice(0, -digits) : text;
  const frac = digits > 0 ? `.${text.slice(-digits)}` : '';
  return `${negative && scaled > 0n ? '−' : ''}${whole}${frac}%`;
}

export const short = (id: string, n = 18) => (id.length > n ? `${id.slice(0, n - 1)}…` : id);

/** `2026-11-20T10:00` (a datetime-local value, read as UTC) → ISO 8601 with offset. */
export function utcInput(v: string | undefined): string | undefined {
  if (!v || !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/.test(v)) return undefined;
  const d = new Date(`${v.length === 10 ? `${v}T00:00` : v}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
