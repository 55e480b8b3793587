const exponents = new Map<string, number>();

/**
 * ISO 4217 minor-unit exponent of a currency (EUR 2, JPY 0, BHD 3), from the platform's Intl data.
 * Remembered per code: building an Intl.NumberFormat costs tens of microseconds, and a chart page
 * asks for every amount it shows (hundreds per overview).
 */
export function exponent(currency: string): number {
  const known = exponents.get(currency);
  if (known !== undefined) return known;
  let e = 2;
  try {
    e =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
  } catch {
    e = 2;
  }
  if (exponents.size < 1000) exponents.set(currency, e);
  return e;
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

export const short = (id: string, n = 18) => (id.length > n ? `${id.slice(0, n - 1)}…` : id);

/** `2026-11-20T10:00` (a datetime-local value, read as UTC) → ISO 8601 with offset. */
export function utcInput(v: string | undefined): string | undefined {
  if (!v || !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/.test(v)) return undefined;
  const d = new Date(`${v.length === 10 ? `${v}T00:00` : v}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
