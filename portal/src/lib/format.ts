const exponents = new Map<string, number>();

/**
 * The crypto currencies of the platform's registry (packages/money/src/registry.ts,
 * docs/currencies.md) and their minor units: Intl knows none of them (it would say 2). The portal
 * keeps this copy because its pages import no workspace code at run time;
 * packages/testkit/src/money-floats.test.ts checks it equals the registry.
 */
export const CRYPTO_EXPONENTS: Readonly<Record<string, number>> = {
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

/**
 * Minor-unit exponent of a currency: a crypto currency's from the registry (BTC 8, ETH 9), an ISO
 * 4217 currency's from the platform's Intl data (EUR 2, JPY 0, BHD 3). Remembered per code:
 * building an Intl.NumberFormat costs tens of microseconds, and a chart page asks for every amount
 * it shows (hundreds per overview).
 */
export function exponent(currency: string): number {
  const crypto = CRYPTO_EXPONENTS[currency];
  if (crypto !== undefined) return crypto;
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
