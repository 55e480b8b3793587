import { z } from 'zod';
import { OperatorIntegration } from './catalog.js';
import { AmountUnit, ContractVersion, Device } from './constants.js';
import { SessionFreeRounds } from './free-rounds.js';
import { AgeBand, Jurisdiction, JurisdictionRules } from './jurisdiction.js';
import { firstMirrorMismatch } from './mirror.js';
import { CurrencyCode, DisplayUnitId, ExternalPlayerId } from './primitives.js';

export * from './jurisdiction.js';

/*
 * POST /api/provider/v1/launch-url.
 *
 * The request is a plain (non-strict) `z.object`: unknown fields are ignored and stripped, not
 * rejected, as the service does; only the fields below reach the handler.
 */

/** A coin string must be a plain unsigned decimal (optionally with exponent), e.g. `0.10`, `1e-2`. */
const COIN_STRING = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/** Coin value: a finite number > 0, or a string that parses as one. Used by `prov_a`/`prov_b` only. */
export const Coin = z.union([
  z.number().positive('coin must be greater than 0'),
  z.string().refine((s) => COIN_STRING.test(s) && Number(s) > 0 && Number.isFinite(Number(s)), {
    message: 'coin must be a finite decimal number greater than 0',
  }),
]);
export type Coin = z.infer<typeof Coin>;

export const LaunchUrlRequest = z
  .object({
    /** Game symbol; one of symbol or slug is required, and if both are given they must name the same game. */
    symbol: z.string().min(1).optional(),
    /** Game slug; one of symbol or slug is required. */
    slug: z.string().min(1).optional(),
    /** Only for provider master keys; operator keys resolve the operator automatically. */
    operator_id: z.string().min(1).optional(),
    /** Stable, globally unique, operator-prefixed player id. */
    external_player_id: ExternalPlayerId,
    /** Coin value for `prov_a`/`prov_b`; `prov_c` and `prov_d` choose stakes in-game and ignore it. */
    coin: Coin.optional(),
    /** Defaults to the operator currency, then `USD`. */
    currency: CurrencyCode.optional(),
    /** Game language code. */
    lang: z.string().min(1).max(16).optional(),
    /**
     * Close/return target. Only URL syntax is checked here; the per-family rules (HTTPS, no
     * credentials or control characters, HTTP/loopback exceptions) are enforced by the service.
     */
    return_url: z.url().optional(),
    /** Device hint; slot families normalize tablet to mobile. */
    device: Device.optional(),
    /**
     * The player's jurisdiction: an ISO 3166-1 alpha-2 country code (`GB`) or an ISO 3166-2
     * subdivision (`CA-ON`), upper case; defaults to the operator's `default_jurisdiction`. `GB`
     * puts its rules in force (no autoplay or turbo; slots: 2.5 s between spin starts and a stake cap;
     * native and crash titles: 5 s between game cycles).
     */
    jurisdiction: Jurisdiction.optional(),
    /**
     * The player's age band (`18-24` or `25+`), as the operator knows it; never a date of birth.
     * Under GB it sets the slot stake cap (GBP 2 for `18-24`, GBP 5 for `25+`); without it the
     * lower cap applies. Recorded on the session and reported in `rules.age_band`.
     */
    age_band: AgeBand.optional(),
    /**
     * Extension (issue 39; the contract says nothing of display): the unit the game pages, the
     * history panel, the replay page and the reality check show amounts in, one of the session
     * currency's display units (BTC: `BTC`, `mBTC`, `uBTC`, `sat`; ETH: `ETH`, `mETH`, `gwei`; a fiat
     * currency: its code). Defaults to the currency's first unit; another unit is 422. Amounts the
     * operator reads and every wallet callback stay in minor units. Changing it is a new launch.
     */
    display_unit: DisplayUnitId.optional(),
  })
  .refine((body) => body.symbol !== undefined || body.slug !== undefined, {
    message: 'symbol or slug is required',
    path: ['symbol'],
    // Report it alongside other field errors instead of only once every field is valid.
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  });
export type LaunchUrlRequest = z.infer<typeof LaunchUrlRequest>;

/**
 * Extension (issue 39; docs/currencies.md "Stake ladders"): the stake ladder a session in a crypto
 * currency is frozen with: a title's EUR reference ladder converted at a loaded exchange rate and
 * snapped to 1-2-5 steps of the currency's minor unit. Every round of the session records it.
 */
export const StakeLadderInfo = z.object({
  /** The ladder's id (`sl_…`). */
  ladder_id: z.string(),
  /** Its version for this title and currency (a new one only when the rate drifts past the band). */
  version: z.number().int(),
  /** The currency of the reference ladder (`EUR`). */
  reference_currency: z.string(),
  /** The stakes, minor units of the session currency (decimal strings), ascending; the operator's limits still apply. */
  stakes_minor: z.array(z.string()),
  /** The exchange rate it was derived at, as loaded: `value` units of `quote` per unit of `base` on `date`. */
  rate: z.object({
    base: z.string(),
    quote: z.string(),
    date: z.string(),
    source: z.string(),
    value: z.string(),
    /** `direct`: used as loaded (EUR → currency); `inverse`: a currency/EUR rate, divided by. */
    direction: z.enum(['direct', 'inverse']),
  }),
});
export type StakeLadderInfo = z.infer<typeof StakeLadderInfo>;

/** A launched session. The `launch_url` is a bearer secret, opened unchanged in the player's browser. */
export const LaunchUrlData = z.object({
  symbol: z.string(),
  slug: z.string(),
  operator_id: z.string().nullable().optional(),
  /** The session currency. */
  currency: z.string(),
  lang: z.string().optional(),
  session_id: z.string(),
  /** Bearer secret; its query parameters are not reconstructed. */
  launch_url: z.url({ protocol: /^https?$/ }),
  /**
   * Family-specific: `prov_a`/`prov_b` inactivity deadline (may be null); `prov_c` 30-minute play
   * session; `prov_d` 5-minute login grant.
   */
  expires_at: z.iso.datetime({ offset: true }).nullable(),
  contract_version: ContractVersion,
  amount_unit: AmountUnit,
  provider_session_id: z.string().nullable().optional(),
  test_launch: z.boolean().optional(),
  operator_integration: OperatorIntegration.optional(),
  /** The jurisdiction rules in force for this session (recorded on it; a relaunch sets them again). */
  rules: JurisdictionRules.optional(),
  /**
   * `prov_a`/`prov_b`: the free rounds of an operator's campaign this session plays before paid
   * spins (count, stake, won so far), or null. Absent for other families. See docs/free-rounds.md.
   */
  free_rounds: SessionFreeRounds.nullable().optional(),
  /**
   * Extension (issue 39): the display unit the pages show amounts in (the request's
   * `display_unit`, else the currency's default unit). Amounts in this answer and in every
   * operator read stay minor units of `currency`.
   */
  display_unit: z.string().optional(),
  /**
   * Extension (issue 39): the stake ladder the session is frozen with (a crypto currency launched
   * without a coin), or null (fiat: 1-2-5 steps of the currency's minor unit, as before).
   */
  stake_ladder: StakeLadderInfo.nullable().optional(),
});
export type LaunchUrlData = z.infer<typeof LaunchUrlData>;

/** 200 of the launch: LaunchUrlData at top level plus `success: true`, and the same object under `data`. */
export const LaunchUrlResponse = LaunchUrlData.extend({
  success: z.literal(true),
  data: LaunchUrlData,
}).superRefine((value, ctx) => {
  const key = firstMirrorMismatch(LaunchUrlData.shape, value);
  if (key !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['data', key],
      message: `data.${key} must repeat the top-level ${key}`,
    });
  }
});
export type LaunchUrlResponse = z.infer<typeof LaunchUrlResponse>;
