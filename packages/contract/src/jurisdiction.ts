import { z } from 'zod';

/*
 * Jurisdiction rules (issue 18). A launch names the player's jurisdiction (`jurisdiction` on the
 * launch body, else the operator's `default_jurisdiction`): an ISO 3166-1 alpha-2 country code
 * (upper case, one of ISO_3166_1_ALPHA2) or an ISO 3166-2 subdivision of one (`CA-ON`, `US-NJ`,
 * `GB-ENG`: the country code, a hyphen, 1 to 3 upper-case letters or digits). The rules in force
 * are reported in the launch answer (`rules`) and recorded on the session.
 */

/** ISO 3166-1 alpha-2: every officially assigned code (249). */
export const ISO_3166_1_ALPHA2 = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET ' +
  'FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ' +
  'ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY ' +
  'MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM ' +
  'PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ ' +
  'TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');
const COUNTRIES = new Set(ISO_3166_1_ALPHA2);

/** `GB`, or a subdivision `CA-ON`: an assigned ISO 3166-1 alpha-2 country, upper case. */
export const Jurisdiction = z
  .string()
  .regex(
    /^[A-Z]{2}(?:-[A-Z0-9]{1,3})?$/,
    'an ISO 3166-1 alpha-2 country code (e.g. GB) or an ISO 3166-2 subdivision (e.g. CA-ON), upper case',
  )
  .refine((v) => COUNTRIES.has(v.slice(0, 2)), 'not an assigned ISO 3166-1 alpha-2 country code');
export type Jurisdiction = z.infer<typeof Jurisdiction>;

/** A reality-check interval in seconds (1 s to 24 h); null: none. */
export const RealityCheckIntervalSeconds = z.number().int().min(1).max(86_400);

/** Least time between the starts of two slot spins where the jurisdiction sets one (GB). */
export const GB_MIN_SPIN_INTERVAL_MS = 2500;

/** Least time between the end of one native or crash game cycle and the start of the next (GB). */
export const GB_MIN_CYCLE_INTERVAL_MS = 5000;

/**
 * The player's age band as the operator knows it (never a date of birth): `18-24` or `25+`.
 * GB slot stakes are capped lower for 18 to 24 year olds.
 */
export const AgeBand = z.enum(['18-24', '25+']);
export type AgeBand = z.infer<typeof AgeBand>;

/**
 * GB slot stake caps per spin, minor units, per session currency: `adult` for `25+`, `young` for
 * `18-24` and for a launch that gives no age band (the safe default). A fixed table, not an
 * exchange rate: GBP is the rule (GBP 5 / GBP 2), EUR and USD are rounded down conversions. A GB
 * slot launch in any other currency is refused (422 at body.currency).
 */
export const GB_SLOT_STAKE_CAPS: Readonly<Record<string, { adult: number; young: number }>> = {
  GBP: { adult: 500, young: 200 },
  EUR: { adult: 550, young: 220 },
  USD: { adult: 600, young: 240 },
};

/** The rules a launch put in force, as the launch answer reports them. */
export const JurisdictionRules = z.object({
  /** The jurisdiction applied (the launch's, else the operator's default), or null when none is known. */
  jurisdiction: z.string().nullable(),
  /** Least milliseconds between the starts of two slot spins (GB: 2500), enforced by the server; null: none. */
  min_spin_interval_ms: z.number().int().nullable(),
  /**
   * Least milliseconds between the end of one native or crash game cycle and the start of the
   * next (GB: 5000), enforced by the server (429 `cycle_too_soon`); null: none (and for slots).
   */
  min_cycle_interval_ms: z.number().int().nullable(),
  /** Whether the game may offer autoplay or auto-bet (GB: false on every family; such requests are refused). */
  autoplay: z.boolean(),
  /** Whether the game may offer turbo/quick spins (GB: false; the spin refuses turbo requests). */
  turbo: z.boolean(),
  /** Seconds between reality checks (the operator's setting; every family), or null: none. */
  reality_check_interval_seconds: z.number().int().nullable(),
  /**
   * Most a slot spin may stake, minor units of the session currency (GB: 500 GBP, 200 GBP for
   * 18 to 24 or an unknown age band; per-currency table), enforced at the spin (422
   * `stake_above_cap`); null: no cap (and for native and crash titles).
   */
  max_stake_minor: z.number().int().nullable(),
  /** The age band the launch gave (`18-24`, `25+`), or null when it gave none. */
  age_band: AgeBand.nullable(),
});
export type JurisdictionRules = z.infer<typeof JurisdictionRules>;

/** Whether a jurisdiction is GB or one of its subdivisions. */
export function isGb(jurisdiction: string | null | undefined): boolean {
  return typeof jurisdiction === 'string' && jurisdiction.slice(0, 2) === 'GB';
}

/** The GB slot stake cap for a currency and age band, or undefined when the table has no entry. */
export function gbSlotStakeCap(currency: string, ageBand: AgeBand | null | undefined): number | undefined {
  const caps = GB_SLOT_STAKE_CAPS[currency];
  if (!caps) return undefined;
  return ageBand === '25+' ? caps.adult : caps.young;
}

/**
 * The rules of a jurisdiction for a game family. GB (and its subdivisions), every family: no
 * autoplay or auto-bet, no turbo. Slots (`prov_a`, `prov_b`): 2.5 s between spin starts and a
 * stake cap per spin (`max_stake_minor`, from the currency and age band; null when the currency
 * has no entry: the launch refuses that). Native (`prov_c`) and crash (`prov_d`): 5 s between the
 * end of one game cycle and the start of the next. The reality check, at the operator's interval,
 * applies to every family.
 */
export function rulesFor(
  jurisdiction: string | null,
  providerId: string,
  realityCheckIntervalSeconds: number | null,
  player: { currency?: string; ageBand?: AgeBand | null } = {},
): JurisdictionRules {
  const slot = providerId === 'prov_a' || providerId === 'prov_b';
  const gb = isGb(jurisdiction);
  return {
    jurisdiction,
    min_spin_interval_ms: gb && slot ? GB_MIN_SPIN_INTERVAL_MS : null,
    min_cycle_interval_ms: gb && !slot ? GB_MIN_CYCLE_INTERVAL_MS : null,
    autoplay: !gb,
    turbo: !gb,
    reality_check_interval_seconds: realityCheckIntervalSeconds,
    max_stake_minor:
      gb && slot && player.currency ? (gbSlotStakeCap(player.currency, player.ageBand) ?? null) : null,
    age_band: player.ageBand ?? null,
  };
}
