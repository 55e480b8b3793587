import { INT64_MAX, isGb, type ProviderId } from '@opi/contract';
import { isSlotTitle } from '@opi/games';
import {
  currencyExponent,
  currencyInfo,
  decimalStringToMinor,
  displayUnit,
  isCryptoCurrency,
} from '@opi/money';

/*
 * The launch request's rules that depend only on the request, the operator and the title
 * (spec: POST /api/provider/v1/launch-url). Each answers a value or a reason for a 422.
 */

export type RuleResult<T> = { ok: true; value: T } | { ok: false; field: string; reason: string };

const ok = <T>(value: T): RuleResult<T> => ({ ok: true, value });
const fail = (field: string, reason: string): RuleResult<never> => ({ ok: false, field, reason });

export interface CurrencyInput {
  requested: string | undefined;
  operator: { default_currency: string; allowed_currencies: string[] };
  game: { provider_id: ProviderId; crash_currencies: string[] | null | undefined };
}

/**
 * The currency defaults to the operator's, then USD. Crash titles with a currency list (title 1:
 * USD; title 2: USD, EUR, GBP) accept only those; other crash titles only the operator's default
 * currency. The other families accept the operator's allowed currencies.
 */
export function resolveCurrency(input: CurrencyInput): RuleResult<string> {
  const currency = input.requested ?? (input.operator.default_currency || 'USD');
  if (input.game.provider_id === 'prov_d') {
    const list = input.game.crash_currencies;
    if (list && list.length > 0) {
      return list.includes(currency)
        ? ok(currency)
        : fail('currency', `this crash title supports ${list.join(', ')} only`);
    }
    return currency === input.operator.default_currency
      ? ok(currency)
      : fail(
          'currency',
          `this crash title supports the operator's default currency (${input.operator.default_currency}) only`,
        );
  }
  return input.operator.allowed_currencies.includes(currency)
    ? ok(currency)
    : fail('currency', `${currency} is not among the operator's allowed currencies`);
}

/**
 * The display unit (issue 39): the request's, which must be one of the currency's units in the
 * registry (422 at body.display_unit otherwise), else the currency's first unit.
 */
export function resolveDisplayUnit(requested: string | undefined, currency: string): RuleResult<string> {
  const unit = displayUnit(currency, requested ?? null);
  if (unit) return ok(unit.id);
  const units = currencyInfo(currency)?.units.map((u) => u.id) ?? [currency];
  return fail(
    'display_unit',
    `${currency} has no display unit ${JSON.stringify(requested)}; its units: ${units.join(', ')}`,
  );
}

/**
 * GB: no crypto currency in any family (issue 39 point 4; docs/currencies.md "GB"). Refused with
 * 422 at body.currency, nothing written.
 */
export function gbFiatOnly(jurisdiction: string | null, currency: string): RuleResult<true> {
  if (isGb(jurisdiction) && isCryptoCurrency(currency)) {
    return fail(
      'currency',
      `crypto currencies are not accepted under GB jurisdiction (${currency}): launch in GBP, EUR or USD`,
    );
  }
  return ok(true);
}

function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * return_url: an absolute URL without credentials or control characters. HTTPS everywhere;
 * prov_a and prov_b also accept HTTP; prov_c accepts HTTP outside production only; prov_d
 * accepts HTTP on loopback only (isolated testing).
 */
export function checkReturnUrl(
  raw: string | undefined,
  family: ProviderId,
  isProduction: boolean,
): RuleResult<string | null> {
  if (raw === undefined) return ok(null);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw))
    return fail('return_url', 'must not contain control characters');
  if (raw.length > 2048) return fail('return_url', 'at most 2048 characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('return_url', 'must be an absolute URL');
  }
  if (url.username || url.password) return fail('return_url', 'must not contain credentials');
  if (url.protocol === 'https:') return ok(url.toString());
  if (url.protocol !== 'http:') return fail('return_url', 'must be an https URL');
  if (isSlotTitle(family)) return ok(url.toString());
  if (family === 'prov_c' && !isProduction) return ok(url.toString());
  if (family === 'prov_d' && isLoopback(url.hostname)) return ok(url.toString());
  return fail('return_url', family === 'prov_d' ? 'must be https (http only on loopback)' : 'must be https');
}

export type Device = 'desktop' | 'mobile' | 'tablet';

/** The device hint; the slot families (prov_a, prov_b) treat a tablet as mobile. */
export function normalizeDevice(device: Device | undefined, family: ProviderId): Device {
  const d = device ?? 'desktop';
  return d === 'tablet' && isSlotTitle(family) ? 'mobile' : d;
}

/**
 * The coin (prov_a/prov_b only; the other families choose stakes in game and ignore it): a finite
 * number greater than zero, or such a number as a string, in currency units, exactly representable
 * in minor units. Returns minor units, or null when it does not apply or is absent.
 */
export function parseCoin(
  coin: number | string | undefined,
  family: ProviderId,
  currency: string,
): RuleResult<bigint | null> {
  if (coin === undefined || !isSlotTitle(family)) return ok(null);
  // money-float-ok: the contract's coin is a number (or a numeric string, exponent forms included):
  // read for its sign and finiteness only; its minor units come from exact digits below.
  const n =
    typeof coin === 'number' ? coin : /^[0-9.eE+-]+$/.test(coin.trim()) ? Number(coin.trim()) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return fail('coin', 'must be a finite number greater than zero');
  // Plain decimal digits (no exponent), then exact conversion: 0.001 EUR is refused, not rounded.
  // A string is taken digit by digit when it is plain; a number (or an exponent form) through its
  // shortest decimal text at the currency's exponent plus one digit, so a part of a minor unit
  // still shows (BTC 0.000000015 is refused, not rounded to 2 sat).
  const plain = typeof coin === 'string' && /^[0-9]+(?:\.[0-9]+)?$/.test(coin.trim()) ? coin.trim() : null;
  const text = plain ?? n.toFixed(Math.min(100, currencyExponent(currency) + 1)).replace(/\.?0+$/, '');
  let minor: bigint;
  try {
    minor = decimalStringToMinor(text, currency);
  } catch {
    return fail('coin', `must be a whole number of ${currency} minor units`);
  }
  if (minor <= 0n) return fail('coin', 'must be greater than zero');
  // Stored as int8 (sessions.coin_minor): a larger coin is a 422, never a database error.
  if (minor > INT64_MAX) return fail('coin', `must be at most ${INT64_MAX} ${currency} minor units`);
  return ok(minor);
}
