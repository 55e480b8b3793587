import { formatMinor, isCryptoCurrency, unitFacts } from '@opi/money';

/**
 * What a page needs to show a session's amounts in its display unit (issue 39; the launch's
 * `display_unit`, docs/currencies.md): `GET /api/runtime/session`'s `display`, the native grant
 * exchange's `session.display` and the crash state's `display`. The page formats minor-unit
 * strings with it by digit work (`static/money.js`), never through a float.
 */
export interface DisplayFacts {
  /** The unit's id (`mBTC`). */
  unit: string;
  /** The text before an amount (`mBTC`, `µBTC`, `USDT`, `EUR`). */
  label: string;
  /** Fraction digits always shown. */
  precision: number;
  /** The unit's exact fraction digits (currency exponent − the unit's shift). */
  digits: number;
  /** Whether the currency is a crypto currency of the registry. */
  crypto: boolean;
}

/** The display facts of a session (its currency and recorded unit; null: the currency's first unit). */
export function displayFacts(session: { currency: string; display_unit?: string | null }): DisplayFacts {
  let f: ReturnType<typeof unitFacts>;
  try {
    f = unitFacts(session.currency, session.display_unit ?? null);
  } catch {
    // A unit the registry no longer lists: the currency's first unit.
    f = unitFacts(session.currency, null);
  }
  return {
    unit: f.unit,
    label: f.label,
    precision: f.precision,
    digits: f.digits,
    crypto: isCryptoCurrency(session.currency),
  };
}

/** `minor` of the session currency as its pages show it (`mBTC 1.00`, `EUR 1.50`). */
export function formatSessionMinor(
  minor: bigint | string,
  session: { currency: string; display_unit?: string | null },
): string {
  return formatMinor(minor, session.currency, displayFacts(session).unit);
}
