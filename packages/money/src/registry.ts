/**
 * The currency registry (issue 39): every currency the platform can play in, with its minor unit
 * (the exponent: an amount of N minor units is N / 10^exponent of the currency) and its display
 * units. docs/currencies.md has the sources and the choices.
 *
 * - ISO 4217 (list one, as published by the maintenance agency SIX): every current code with its
 *   "minor unit" column. Codes without minor units (precious metals, XDR, XTS, XXX, ...) and fund
 *   codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW) are listed so that nothing collides with
 *   them, but an operator cannot enable them (`playable` false).
 * - Crypto currencies: three-letter codes that are no ISO 4217 code, current or withdrawn
 *   (`ISO_4217_WITHDRAWN` below; registry.test.ts checks it). Coins keep their common code; tokens
 *   whose ticker is longer get a registry code (USDT → UDT, USDC → UDC, DOGE → XDG).
 */

export type CurrencyKind = 'fiat' | 'crypto' | 'fund' | 'other';

/** A unit a page may show amounts in. */
export interface DisplayUnit {
  /** The unit's id in the API (`display_unit` of a launch): ASCII letters only, e.g. `mBTC`, `uBTC`, `sat`. */
  id: string;
  /** The text shown before an amount, e.g. `mBTC`, `µBTC`, `sat`, `USDT`, `EUR`. */
  label: string;
  /** 10^shift of the unit make one major unit of the currency: BTC 0, mBTC 3, µBTC 6, sat 8. */
  shift: number;
  /**
   * Fraction digits always shown in this unit. Digits beyond it are shown only when the amount has
   * them (never rounded away): the most is exponent − shift, the unit's exact digits.
   */
  precision: number;
}

export interface CurrencyInfo {
  code: string;
  name: string;
  kind: CurrencyKind;
  /** Minor-unit exponent: amounts are integers of 10^-exponent of the currency. */
  exponent: number;
  /** Whether an operator may enable it (fiat and crypto; not funds, metals or testing codes). */
  playable: boolean;
  /** The common ticker when it is not the code (USDT for UDT). */
  ticker?: string;
  /**
   * Crypto: the most of the currency there is or will be, in major units, rounded up (the
   * headroom check of registry.test.ts); null when the supply has no cap.
   */
  supply?: bigint | null;
  /** Display units, the default first. */
  units: DisplayUnit[];
  /** Where the exponent comes from. */
  source: string;
}

const ISO_SOURCE = 'ISO 4217 list one (SIX, current edition), minor unit column';

/** ISO 4217 current codes by exponent (minor unit column). */
const ISO_BY_EXPONENT: Record<number, string> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2:
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
    'CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS ' +
    'GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL ' +
    'MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK ' +
    'PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS ' +
    'TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

/** ISO 4217 fund codes: not money a player holds. */
const ISO_FUNDS = new Set(['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW']);

/** ISO 4217 codes without a minor unit (metals, drawing rights, testing, "no currency"). */
const ISO_NO_MINOR_UNIT = [
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
];

/**
 * ISO 4217 codes withdrawn (list three, historic denominations), those still known to payment
 * systems: a registry code may not be one of them either.
 */
export const ISO_4217_WITHDRAWN: readonly string[] = (
  'ADP AFA ALK AOK AON AOR ARA ARP ARY ATS AYM AZM BAD BEC BEF BEL BGJ BGK BGL BOP BRB BRC BRE BRN ' +
  'BRR BUK BYB BYR CSD CSJ CSK CUC CYP DDM DEM ECS ECV EEK ESA ESB ESP FIM FRF GEK GHC GHP GNE GNS ' +
  'GQE GRD GWE GWP HRD HRK IEP ILP ILR ISJ ITL LAJ LSM LTL LTT LUC LUF LUL LVL LVR MGF MLF MRO MTL ' +
  'MTP MVQ MXP MZE MZM NIC NLG PEH PEI PES PLZ PTE RHD ROK ROL RUR SDD SDP SIT SKK SLL SRG STD ' +
  'SUR TJR TMM TPE TRL UAK UGS UGW USS UYN UYP VEB VEF VNC XEU XFO XFU XRE YDD YUD YUM YUN ZAL ZMK ' +
  'ZRN ZRZ ZWC ZWD ZWL ZWN ZWR'
).split(' ');

const iso: CurrencyInfo[] = [];
for (const [exp, codes] of Object.entries(ISO_BY_EXPONENT)) {
  for (const code of codes.split(' ')) {
    const exponent = Number(exp);
    const fund = ISO_FUNDS.has(code);
    iso.push({
      code,
      name: code,
      kind: fund ? 'fund' : 'fiat',
      exponent,
      playable: !fund,
      units: [{ id: code, label: code, shift: 0, precision: exponent }],
      source: ISO_SOURCE,
    });
  }
}
for (const code of ISO_NO_MINOR_UNIT) {
  iso.push({
    code,
    name: code,
    kind: 'other',
    exponent: 0,
    playable: false,
    units: [{ id: code, label: code, shift: 0, precision: 0 }],
    source: `${ISO_SOURCE} (N.A.: no minor unit)`,
  });
}

const u = (id: string, shift: number, precision: number, label = id): DisplayUnit => ({
  id,
  label,
  shift,
  precision,
});

/** The crypto currencies (docs/currencies.md: why each exponent, where it comes from). */
const CRYPTO: CurrencyInfo[] = [
  {
    code: 'BTC',
    name: 'Bitcoin',
    kind: 'crypto',
    exponent: 8,
    playable: true,
    supply: 21_000_000n,
    units: [u('BTC', 0, 8), u('mBTC', 3, 2), u('uBTC', 6, 2, 'µBTC'), u('sat', 8, 0)],
    source: 'the satoshi, 10^-8 BTC (Bitcoin Core COIN = 100000000); Hub88 precision 8',
  },
  {
    code: 'ETH',
    name: 'Ether',
    kind: 'crypto',
    exponent: 9,
    playable: true,
    // About 120.7 million in 2026 and no cap: taken as 10^9 (int64 holds 9.2 × 10^9 ETH in gwei).
    supply: null,
    units: [u('ETH', 0, 6), u('mETH', 3, 3), u('gwei', 9, 0)],
    source: 'the gwei, 10^-9 ETH (the unit of gas prices); wei (10^-18) would hold only 9.2 ETH in int64',
  },
  {
    code: 'LTC',
    name: 'Litecoin',
    kind: 'crypto',
    exponent: 8,
    playable: true,
    supply: 84_000_000n,
    units: [u('LTC', 0, 8), u('mLTC', 3, 2), u('litoshi', 8, 0)],
    source: 'the litoshi, 10^-8 LTC (Litecoin Core COIN); Hub88 precision 8',
  },
  {
    code: 'XRP',
    name: 'XRP',
    kind: 'crypto',
    exponent: 6,
    playable: true,
    supply: 100_000_000_000n,
    units: [u('XRP', 0, 2), u('drop', 6, 0)],
    source: 'the drop, 10^-6 XRP (XRP Ledger: amounts are integer drops); Hub88 precision 6',
  },
  {
    code: 'SOL',
    name: 'Solana',
    kind: 'crypto',
    exponent: 9,
    playable: true,
    // About 600 million in 2026 with inflation under 5 % a year: int64 holds 9.2 × 10^9 SOL.
    supply: null,
    units: [u('SOL', 0, 4), u('lamport', 9, 0)],
    source: 'the lamport, 10^-9 SOL (Solana LAMPORTS_PER_SOL = 1000000000)',
  },
  {
    code: 'TRX',
    name: 'TRON',
    kind: 'crypto',
    exponent: 6,
    playable: true,
    supply: null,
    units: [u('TRX', 0, 2), u('sun', 6, 0)],
    source: 'the sun, 10^-6 TRX (TRON: balances are integer sun)',
  },
  {
    code: 'BNB',
    name: 'BNB',
    kind: 'crypto',
    exponent: 8,
    playable: true,
    supply: 200_000_000n,
    units: [u('BNB', 0, 4), u('mBNB', 3, 2)],
    source: 'BNB Beacon Chain precision 8 (10^-8); BSC tokens carry 18, which int64 cannot hold',
  },
  {
    code: 'UDT',
    name: 'Tether USD',
    kind: 'crypto',
    ticker: 'USDT',
    exponent: 6,
    playable: true,
    supply: null,
    units: [u('USDT', 0, 2)],
    source: 'USDT token decimals 6 (Ethereum and TRON contracts)',
  },
  {
    code: 'UDC',
    name: 'USD Coin',
    kind: 'crypto',
    ticker: 'USDC',
    exponent: 6,
    playable: true,
    supply: null,
    units: [u('USDC', 0, 2)],
    source: 'USDC token decimals 6 (Circle, every chain)',
  },
  {
    code: 'XDG',
    name: 'Dogecoin',
    kind: 'crypto',
    ticker: 'DOGE',
    exponent: 8,
    playable: true,
    // About 150 billion in 2026, 5 billion more a year: int64 holds 92 billion DOGE (one amount).
    supply: null,
    units: [u('DOGE', 0, 2), u('koinu', 8, 0)],
    source: 'the koinu, 10^-8 DOGE (Dogecoin Core COIN); XDG is the code Kraken uses for Dogecoin',
  },
];

const REGISTRY = new Map<string, CurrencyInfo>();
for (const c of [...iso, ...CRYPTO]) {
  if (REGISTRY.has(c.code)) throw new Error(`currency ${c.code} listed twice`);
  REGISTRY.set(c.code, Object.freeze({ ...c, units: c.units.map((x) => Object.freeze(x)) }));
}

/** Every registry entry (ISO 4217 current codes, then the crypto currencies). */
export function currencies(): CurrencyInfo[] {
  return [...REGISTRY.values()];
}

/** The registry's entry for `code`, or null for a code it does not list. */
export function currencyInfo(code: string): CurrencyInfo | null {
  return REGISTRY.get(code) ?? null;
}

/** Whether an operator may enable `code`: a fiat or crypto currency of the registry. */
export function isPlayableCurrency(code: unknown): code is string {
  return typeof code === 'string' && REGISTRY.get(code)?.playable === true;
}

/** Whether `code` is a crypto currency of the registry. */
export function isCryptoCurrency(code: string): boolean {
  return REGISTRY.get(code)?.kind === 'crypto';
}

/** The codes of the registry's crypto currencies. */
export const CRYPTO_CODES: readonly string[] = CRYPTO.map((c) => c.code);

/** Every code ISO 4217 lists today (current, funds and codes without a minor unit). */
export const ISO_4217_CURRENT: readonly string[] = iso.map((c) => c.code);

/**
 * The display unit `unitId` of `currency`, or its default unit when `unitId` is null/undefined.
 * Null when the currency has no such unit (or the currency is not in the registry and a unit is
 * named). A currency outside the registry has one unit, its code, at exponent 2 (as before issue 39).
 */
export function displayUnit(currency: string, unitId?: string | null): DisplayUnit | null {
  const info = REGISTRY.get(currency);
  if (!info) {
    if (unitId != null && unitId !== currency) return null;
    return { id: currency, label: currency, shift: 0, precision: 2 };
  }
  if (unitId == null) return info.units[0]!;
  return info.units.find((x) => x.id === unitId) ?? null;
}
