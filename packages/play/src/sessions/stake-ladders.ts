import { randomUUID } from 'node:crypto';
import { exchangeRateOn, type Pool, type PoolClient } from '@opi/db';
import {
  convertLadder,
  currencyExponent,
  decimalRatio,
  driftedPast,
  invertRatio,
  isCryptoCurrency,
  type Ratio,
} from '@opi/money';
import { unprocessable } from '@opi/service-kit/http/named-errors';

/*
 * Stake ladders by rate (issue 39 point 3; docs/currencies.md "Stake ladders"; migration
 * 1700000000035_stake_ladders). A title's reference ladder in EUR, converted to a crypto currency
 * at the exchange rate in force (exchange_rates), snapped to 1-2-5 steps of the currency's minor
 * unit (nice in every display unit at once: they are powers of ten apart), versioned per title and
 * currency, and written again only when the rate in force drifts past LADDER_DRIFT_BAND_PPM from
 * the latest version's. The launch freezes a ladder on the session; every round records it.
 */

/** The currency reference ladders are written in. */
export const REFERENCE_CURRENCY = 'EUR';

/** A new ladder version is derived when the rate in force differs from the latest's by more than this (10 %). */
export const LADDER_DRIFT_BAND_PPM = 100_000n;

/** EUR 0.10, 0.20, 0.50, 1, 2, 5, 10, 20, 50, 100: every title's, unless TITLE_REFERENCE says otherwise. */
const DEFAULT_REFERENCE: readonly bigint[] = [10n, 20n, 50n, 100n, 200n, 500n, 1000n, 2000n, 5000n, 10000n];

/**
 * Titles whose reference ladder differs from the default (EUR minor units, ascending, at most
 * 30). Rime Crown Vault plays 50 lines: its smallest stake is a cent a line, EUR 0.50, up to 200.
 */
const TITLE_REFERENCE: Record<string, readonly bigint[]> = {
  vs50rimevault: [50n, 100n, 200n, 500n, 1000n, 2000n, 5000n, 10000n, 20000n],
};

/** A title's reference ladder in EUR minor units. */
export function referenceLadder(symbol: string): readonly bigint[] {
  return TITLE_REFERENCE[symbol] ?? DEFAULT_REFERENCE;
}

/** A stored ladder (never changed once written). */
export interface StakeLadder {
  ladder_id: string;
  symbol: string;
  currency: string;
  version: number;
  reference_currency: string;
  reference_stakes_minor: string[];
  stakes_minor: string[];
  rate_base: string;
  rate_quote: string;
  /** YYYY-MM-DD */
  rate_date: string;
  rate_source: string;
  /** The exact decimal as loaded. */
  rate: string;
  direction: 'direct' | 'inverse';
}

const COLUMNS = `ladder_id, symbol, trim(currency) AS currency, version, trim(reference_currency) AS reference_currency,
  reference_stakes_minor::text[] AS reference_stakes_minor, stakes_minor::text[] AS stakes_minor,
  trim(rate_base) AS rate_base, trim(rate_quote) AS rate_quote, to_char(rate_date, 'YYYY-MM-DD') AS rate_date,
  rate_source, trim_scale(rate)::text AS rate, direction`;

/** The ladder's rate as target (ladder currency) per reference currency. */
export function ladderRatio(l: Pick<StakeLadder, 'rate' | 'direction'>): Ratio {
  const r = decimalRatio(l.rate);
  return l.direction === 'direct' ? r : invertRatio(r);
}

/** Why a launch gets no ladder: none applies (fiat), or none can be derived (no rate in force). */
export type LadderResult =
  | { kind: 'none' }
  | { kind: 'no_rate'; pair: string }
  | { kind: 'ladder'; ladder: StakeLadder };

/**
 * The ladder a launch in `currency` freezes on its session: for a crypto currency, the latest
 * version of the title's ladder when the rate in force on `today` (YYYY-MM-DD, UTC) is within the
 * band of its rate, else a new version derived at that rate. `none` for a fiat currency (its
 * stakes are 1-2-5 steps of its own minor unit, as before); `no_rate` when no EUR rate of the
 * currency is loaded on or before `today`.
 */
export async function ladderForLaunch(
  pool: Pool,
  input: { symbol: string; currency: string; today: string },
): Promise<LadderResult> {
  const { symbol, currency, today } = input;
  if (!isCryptoCurrency(currency)) return { kind: 'none' };
  const rate = await exchangeRateOn(pool, REFERENCE_CURRENCY, currency, today);
  if (!rate) return { kind: 'no_rate', pair: `${REFERENCE_CURRENCY}/${currency}` };
  const ratio = rate.direction === 'direct' ? decimalRatio(rate.rate) : invertRatio(decimalRatio(rate.rate));
  const latest = await latestLadder(pool, symbol, currency);
  if (latest && !driftedPast(ratio, ladderRatio(latest), LADDER_DRIFT_BAND_PPM)) {
    return { kind: 'ladder', ladder: latest };
  }
  const reference = referenceLadder(symbol);
  const stakes = convertLadder(
    reference,
    ratio,
    currencyExponent(REFERENCE_CURRENCY),
    currencyExponent(currency),
  );
  const { rows } = await pool.query<StakeLadder>(
    `INSERT INTO stake_ladders (ladder_id, symbol, currency, version, reference_currency, reference_stakes_minor,
                                stakes_minor, rate_base, rate_quote, rate_date, rate_source, rate, direction)
     VALUES ($1, $2, $3, $4, $5, $6::bigint[], $7::bigint[], $8, $9, $10::date, $11, $12::numeric, $13)
     ON CONFLICT (symbol, currency, version) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      `sl_${randomUUID()}`,
      symbol,
      currency,
      (latest?.version ?? 0) + 1,
      REFERENCE_CURRENCY,
      reference.map(String),
      stakes.map(String),
      rate.base_currency.trim(),
      rate.quote_currency.trim(),
      rate.rate_date,
      rate.source,
      rate.rate,
      rate.direction,
    ],
  );
  if (rows[0]) {
    remember(rows[0]);
    return { kind: 'ladder', ladder: rows[0] };
  }
  // A concurrent launch wrote this version first: its ladder (same rate or one within the band).
  const now = await latestLadder(pool, symbol, currency);
  if (!now) throw new Error('stake ladder missing after a conflicting insert');
  return { kind: 'ladder', ladder: now };
}

async function latestLadder(pool: Pool, symbol: string, currency: string): Promise<StakeLadder | null> {
  const { rows } = await pool.query<StakeLadder>(
    `SELECT ${COLUMNS} FROM stake_ladders WHERE symbol = $1 AND currency = $2 ORDER BY version DESC LIMIT 1`,
    [symbol, currency],
  );
  if (rows[0]) remember(rows[0]);
  return rows[0] ?? null;
}

// Ladders never change once written: kept per process by id (bounded).
const byId = new Map<string, StakeLadder>();
function remember(l: StakeLadder): void {
  if (byId.size >= 10_000) byId.clear();
  byId.set(l.ladder_id, l);
}

/** A ladder by id (from the process's memory after the first read), or null. */
export async function ladderById(pool: Pool | PoolClient, ladderId: string): Promise<StakeLadder | null> {
  const known = byId.get(ladderId);
  if (known) return known;
  const { rows } = await pool.query<StakeLadder>(
    `SELECT ${COLUMNS} FROM stake_ladders WHERE ladder_id = $1`,
    [ladderId],
  );
  if (rows[0]) remember(rows[0]);
  return rows[0] ?? null;
}

/** The ladder as the page and the operator's reads show it (stakes as strings of minor units). */
export function presentLadder(l: StakeLadder) {
  return {
    ladder_id: l.ladder_id,
    version: l.version,
    reference_currency: l.reference_currency,
    stakes_minor: l.stakes_minor,
    rate: {
      base: l.rate_base,
      quote: l.rate_quote,
      date: l.rate_date,
      source: l.rate_source,
      value: l.rate,
      direction: l.direction,
    },
  };
}

/** The ladder's stakes within the operator's limits (decimal strings, ascending). */
export function ladderStakesWithin(l: StakeLadder, min: bigint, max: bigint): string[] {
  return l.stakes_minor.filter((v) => BigInt(v) >= min && BigInt(v) <= max);
}

/**
 * A session frozen with a ladder takes its stakes only (422 at `field`, error
 * `stake_not_on_ladder`, before anything is written); a session without one passes.
 */
export async function assertOnLadder(
  pool: Pool,
  session: { stake_ladder_id?: string | null },
  stakeMinor: bigint,
  field: string,
): Promise<void> {
  if (!session.stake_ladder_id) return;
  const ladder = await ladderById(pool, session.stake_ladder_id);
  if (!ladder || ladder.stakes_minor.includes(stakeMinor.toString())) return;
  throw unprocessable(
    [
      {
        loc: ['body', field],
        msg: `not a stake of this session's ladder (version ${ladder.version}): ${ladder.stakes_minor.join(', ')}`,
        type: 'value_error',
      },
    ],
    { error: 'stake_not_on_ladder' },
  );
}

/** The ladder's stake derived from `referenceMinor` of the reference currency (EUR 1.00: 100). */
export function ladderStakeFor(l: StakeLadder, referenceMinor: bigint): string {
  const [v] = convertLadder(
    [referenceMinor],
    ladderRatio(l),
    currencyExponent(l.reference_currency),
    currencyExponent(l.currency),
  );
  return String(v);
}
