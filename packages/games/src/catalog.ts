/**
 * Seed catalog: the static facts of every installed title.
 *
 * Everything here is stored metadata. In particular `rtp` is the declared
 * return-to-player figure of the installed build (see `STORED_RTP`), not a
 * measured payout rate, and `features` declare support without proving that
 * replay data exists. Operator scoping, switches and release gates are applied
 * elsewhere; this module only describes what is installed.
 */

export const PROVIDER_IDS = ['prov_a', 'prov_b', 'prov_c', 'prov_d'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** The provider families whose titles are video slots (prov_a, prov_b): the slot engine's titles. */
export const SLOT_PROVIDER_IDS = ['prov_a', 'prov_b'] as const;
export type SlotProviderId = (typeof SLOT_PROVIDER_IDS)[number];

/**
 * Whether a title is a slot, by its provider family: every title of prov_a and prov_b is a video
 * slot (spins, free rounds, jackpots, tournaments), no other family's is. The one test of it.
 */
export function isSlotTitle(providerId: string | null | undefined): providerId is SlotProviderId {
  return providerId === 'prov_a' || providerId === 'prov_b';
}

export type IntegrationMode = 'operator-wallet' | 'demo-only' | 'sandbox-only';

export type GameFamily = 'video-slot' | 'mines' | 'hilo' | 'dice' | 'plinko' | 'limbo' | 'crash';

/** Families whose rounds consist of several player decisions (reveal / guess / cash out). */
export const MULTI_STAGE_FAMILIES: readonly GameFamily[] = ['mines', 'hilo'];

export type LaunchStatus =
  /** operator-wallet, release accepted, wallet transport on by default */
  | 'ready'
  /** the installed version is blocked in the release registry */
  | 'release-blocked'
  /** prov_b: the family switch (off by default) decides */
  | 'switch-gated'
  /** prov_c: per-title operator-wallet flag, default disabled */
  | 'opt-in'
  | 'demo'
  | 'sandbox';

export type Browser = 'chrome' | 'safari' | 'firefox' | 'edge' | 'chrome-android' | 'safari-ios';

export interface FeatureFlags {
  readonly bonus: boolean;
  readonly collect: boolean;
  readonly free_spins: boolean;
  readonly buy_feature: boolean;
  readonly special_bet: boolean;
}

export interface SpecialBetProfile {
  readonly symbol: string;
  /** number of special-bet buttons the client shows */
  readonly buttons: number;
  /** allowed bet levels, ascending */
  readonly bls: readonly number[];
  readonly default_bl: number;
  readonly service_version: string;
  readonly cver: string;
}

export interface ReleaseRecord {
  readonly status: 'accepted' | 'blocked';
  readonly detail: string;
  readonly reasons: readonly string[];
  readonly evidence: readonly string[];
  readonly deployment_identity: string | null;
}

export interface CatalogEntry {
  readonly symbol: string;
  readonly slug: string;
  readonly title: string;
  readonly provider_id: ProviderId;
  readonly provider: string;
  readonly family: GameFamily;
  /** stored metadata, two decimals, e.g. '96.50' */
  readonly rtp: string;
  /** paylines (or ways) — video slots only */
  readonly lines?: number;
  readonly integration_mode: IntegrationMode;
  readonly installed_version: string;
  /** prov_c per-title operator-wallet flag / prov_d crash opt-in default */
  readonly operator_wallet_default: boolean;
  /** prov_c only: the title is meant to be switched on in the demo */
  readonly demo_enable?: boolean;
  readonly features: FeatureFlags;
  readonly special_bet_profile: SpecialBetProfile | null;
  readonly asset_version: string;
  readonly asset_symbol: string;
  readonly asset_source: 'bundled' | 'generated-fallback';
  readonly has_local_assets: boolean;
  readonly game_service_version: string;
  readonly loader_mode: string;
  readonly provider_tagline: string;
  readonly shell_strategy: string;
  readonly launch_status: LaunchStatus;
  readonly live_catalog_enabled: boolean;
  readonly certified_browsers: readonly Browser[];
  /** crash only: accepted currencies; null means the operator default */
  readonly crash_currencies?: readonly string[] | null;
  /** release registry record of the installed version */
  readonly release: ReleaseRecord;
}

export interface ProviderInfo {
  readonly name: string;
  readonly tagline: string;
  readonly game_service_version: string;
  readonly loader_mode: string;
  readonly shell_strategy: string;
}

export const PROVIDERS: Readonly<Record<ProviderId, ProviderInfo>> = {
  prov_a: {
    name: 'Aurora Slots',
    tagline: 'Northern-light video slots',
    game_service_version: '5.14.2',
    loader_mode: 'gs2c-html5',
    shell_strategy: 'gs2c-frame',
  },
  prov_b: {
    name: 'Borealis Native',
    tagline: 'Slots with native round recovery',
    game_service_version: '2.3.0',
    loader_mode: 'gs2c-html5',
    shell_strategy: 'gs2c-frame',
  },
  prov_c: {
    name: 'Cinder Originals',
    tagline: 'Provably fair originals, forged in-house',
    game_service_version: '1.8.1',
    loader_mode: 'native-spa',
    shell_strategy: 'native-shell',
  },
  prov_d: {
    name: 'Dash Crash',
    tagline: 'Multiplier rounds that never wait',
    game_service_version: '3.2.0',
    loader_mode: 'crash-spa',
    shell_strategy: 'crash-shell',
  },
};

/**
 * The stored RTP of every title, in one place. Slot values are checked
 * against the simulator; keep them as two-decimal strings.
 */
export const STORED_RTP = {
  // prov_a — Aurora Slots
  vs20emberfox: '96.50',
  vs25tidalpearl: '96.21',
  vs10glacierrun: '95.87',
  vs40jadelantern: '96.71',
  vs243copperkiln: '96.10',
  vs20starorchard: '94.62',
  // prov_b — Borealis Native
  vs20frostwolf: '96.48',
  vs25northlight: '96.05',
  vs30fjordhoard: '96.33',
  vs50rimevault: '95.52',
  // prov_c — Cinder Originals
  cnmines: '97.00',
  cnhilo: '97.00',
  cndice: '98.00',
  cnplinko: '97.00',
  cnlimbo: '98.00',
  // prov_d — Dash Crash
  dcrash1: '97.00',
  dcrash2: '97.00',
  dcrash3: '96.00',
} as const satisfies Record<string, string>;

export type CatalogSymbol = keyof typeof STORED_RTP;

const ALL_BROWSERS: readonly Browser[] = [
  'chrome',
  'safari',
  'firefox',
  'edge',
  'chrome-android',
  'safari-ios',
];
const DESKTOP_CHROME_ONLY: readonly Browser[] = ['chrome'];

const NO_FEATURES: FeatureFlags = {
  bonus: false,
  collect: false,
  free_spins: false,
  buy_feature: false,
  special_bet: false,
};

function accepted(providerId: ProviderId, symbol: string, version: string, build: string): ReleaseRecord {
  return {
    status: 'accepted',
    detail: `Installed version ${version} accepted by the release registry`,
    reasons: [],
    evidence: [
      `acceptance/${symbol}/${version}: desktop and mobile suites passed`,
      `wallet-diagnostics/${symbol}/${version}: balance, debit, credit, cancel, rollback passed`,
    ],
    deployment_identity: `${providerId}/${symbol}@${version}+${build}`,
  };
}

function blocked(
  version: string,
  reasons: readonly string[],
  evidence: readonly string[] = [],
): ReleaseRecord {
  return {
    status: 'blocked',
    detail: `Installed version ${version} is not accepted: ${reasons.length} open blocker(s)`,
    reasons,
    evidence,
    deployment_identity: null,
  };
}

const NOT_SUBMITTED = ['Sandbox build; never submitted to the release registry'];
const DEMO_BUILD = ['Demo build; client demonstration only, not a production release candidate'];

/** The fields every title declares by hand; the rest is derived in `entry()`. */
interface Seed {
  readonly symbol: CatalogSymbol;
  readonly slug: string;
  readonly title: string;
  readonly provider_id: ProviderId;
  readonly family: GameFamily;
  readonly lines?: number;
  readonly integration_mode: IntegrationMode;
  readonly installed_version: string;
  readonly operator_wallet_default: boolean;
  readonly demo_enable?: boolean;
  readonly features: FeatureFlags;
  readonly special_bet_profile?: Omit<SpecialBetProfile, 'symbol' | 'service_version'>;
  readonly asset_version: string;
  readonly has_local_assets: boolean;
  readonly certified_browsers: readonly Browser[];
  readonly crash_currencies?: readonly string[] | null;
  readonly release: ReleaseRecord;
}

function launchStatusOf(seed: Seed): LaunchStatus {
  if (seed.integration_mode === 'demo-only') return 'demo';
  if (seed.integration_mode === 'sandbox-only') return 'sandbox';
  if (seed.release.status !== 'accepted') return 'release-blocked';
  if (seed.provider_id === 'prov_b') return 'switch-gated';
  if (!seed.operator_wallet_default) return 'opt-in';
  return 'ready';
}

function entry(seed: Seed): CatalogEntry {
  const info = PROVIDERS[seed.provider_id];
  const { special_bet_profile: sbp, ...rest } = seed;
  const launch_status = launchStatusOf(seed);
  const built: CatalogEntry = {
    ...rest,
    provider: info.name,
    rtp: STORED_RTP[seed.symbol],
    special_bet_profile: sbp
      ? { symbol: seed.symbol, service_version: info.game_service_version, ...sbp }
      : null,
    asset_symbol: seed.symbol,
    asset_source: seed.has_local_assets ? 'bundled' : 'generated-fallback',
    game_service_version: info.game_service_version,
    loader_mode: info.loader_mode,
    provider_tagline: info.tagline,
    shell_strategy: info.shell_strategy,
    launch_status,
    live_catalog_enabled: launch_status === 'ready',
  };
  return deepFreeze(built);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const SLOT_BROWSERS = ALL_BROWSERS;

export const CATALOG: readonly CatalogEntry[] = Object.freeze([
  // ── prov_a — Aurora Slots: callback-wallet video slots ─────────────────────
  entry({
    symbol: 'vs20emberfox',
    slug: 'ember-fox-fortunes',
    title: 'Ember Fox Fortunes',
    provider_id: 'prov_a',
    family: 'video-slot',
    lines: 20,
    integration_mode: 'operator-wallet',
    installed_version: '1.4.2',
    operator_wallet_default: true,
    features: { bonus: true, collect: false, free_spins: true, buy_feature: true, special_bet: true },
    special_bet_profile: { buttons: 1, bls: [1, 2, 3, 5, 10, 20], default_bl: 1, cver: '2025.03.18-4' },
    asset_version: '2025.03.1',
    has_local_assets: true,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_a', 'vs20emberfox', '1.4.2', 'b7c41e2'),
  }),
  entry({
    symbol: 'vs25tidalpearl',
    slug: 'tidal-pearl-treasury',
    title: 'Tidal Pearl Treasury',
    provider_id: 'prov_a',
    family: 'video-slot',
    lines: 25,
    integration_mode: 'operator-wallet',
    installed_version: '2.0.1',
    operator_wallet_default: true,
    features: { bonus: true, collect: true, free_spins: true, buy_feature: false, special_bet: false },
    asset_version: '2025.01.2',
    has_local_assets: true,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_a', 'vs25tidalpearl', '2.0.1', '0a93d5f'),
  }),
  entry({
    symbol: 'vs10glacierrun',
    slug: 'glacier-run',
    title: 'Glacier Run',
    provider_id: 'prov_a',
    family: 'video-slot',
    lines: 10,
    integration_mode: 'operator-wallet',
    installed_version: '1.1.0',
    operator_wallet_default: true,
    features: { bonus: false, collect: false, free_spins: true, buy_feature: true, special_bet: false },
    asset_version: '2025.04.1',
    has_local_assets: true,
    certified_browsers: ['chrome', 'safari', 'firefox', 'edge'],
    release: blocked(
      '1.1.0',
      [
        'Buy-feature price table changed since the accepted 1.0.6 build and has no acceptance run',
        'Mobile acceptance (chrome-android, safari-ios) not yet signed off for 1.1.0',
      ],
      ['acceptance/vs10glacierrun/1.1.0: 12 of 14 checks passed'],
    ),
  }),
  entry({
    symbol: 'vs40jadelantern',
    slug: 'jade-lantern-nights',
    title: 'Jade Lantern Nights',
    provider_id: 'prov_a',
    family: 'video-slot',
    lines: 40,
    integration_mode: 'operator-wallet',
    installed_version: '3.2.0',
    operator_wallet_default: true,
    features: { bonus: false, collect: false, free_spins: true, buy_feature: true, special_bet: true },
    special_bet_profile: { buttons: 2, bls: [1, 2, 4, 8, 16], default_bl: 2, cver: '2025.05.02-1' },
    asset_version: '2025.05.1',
    has_local_assets: true,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_a', 'vs40jadelantern', '3.2.0', '5e18aa0'),
  }),
  entry({
    symbol: 'vs243copperkiln',
    slug: 'copper-kiln-riches',
    title: 'Copper Kiln Riches',
    provider_id: 'prov_a',
    family: 'video-slot',
    lines: 243,
    integration_mode: 'operator-wallet',
    installed_version: '1.0.4',
    operator_wallet_default: true,
    features: { bonus: true, collect: true, free_spins: false, buy_feature: false, special_bet: false },
    asset_version: '2024.12.3',
    has_local_assets: true,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_a', 'vs243copperkiln', '1.0.4', 'c2f0971'),
  }),
  entry({
    symbol: 'vs20starorchard',
    slug: 'star-orchard',
    title: 'Star Orchard',
    provider_id: 'prov_a',
    family: 'video-slot',
    lines: 20,
    integration_mode: 'operator-wallet',
    installed_version: '1.2.3',
    operator_wallet_default: true,
    features: { bonus: false, collect: false, free_spins: true, buy_feature: false, special_bet: true },
    special_bet_profile: { buttons: 1, bls: [1, 5, 10, 25], default_bl: 5, cver: '2025.02.11-3' },
    asset_version: '2025.02.1',
    has_local_assets: false,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_a', 'vs20starorchard', '1.2.3', '91bd3c4'),
  }),

  // ── prov_b — Borealis Native: native settlement, family behind a switch ────
  entry({
    symbol: 'vs20frostwolf',
    slug: 'frostwolf-howl',
    title: 'Frostwolf Howl',
    provider_id: 'prov_b',
    family: 'video-slot',
    lines: 20,
    integration_mode: 'operator-wallet',
    installed_version: '1.3.0',
    operator_wallet_default: true,
    features: { bonus: true, collect: false, free_spins: true, buy_feature: true, special_bet: false },
    asset_version: '2025.03.2',
    has_local_assets: true,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_b', 'vs20frostwolf', '1.3.0', 'e4a7710'),
  }),
  entry({
    symbol: 'vs25northlight',
    slug: 'northlight-cascade',
    title: 'Northlight Cascade',
    provider_id: 'prov_b',
    family: 'video-slot',
    lines: 25,
    integration_mode: 'operator-wallet',
    installed_version: '2.1.4',
    operator_wallet_default: true,
    features: { bonus: false, collect: false, free_spins: true, buy_feature: false, special_bet: false },
    asset_version: '2025.01.4',
    has_local_assets: true,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_b', 'vs25northlight', '2.1.4', '3d2c8b9'),
  }),
  entry({
    symbol: 'vs30fjordhoard',
    slug: 'fjord-hoard',
    title: 'Fjord Hoard',
    provider_id: 'prov_b',
    family: 'video-slot',
    lines: 30,
    integration_mode: 'operator-wallet',
    installed_version: '1.0.9',
    operator_wallet_default: true,
    features: { bonus: true, collect: true, free_spins: false, buy_feature: false, special_bet: true },
    special_bet_profile: { buttons: 1, bls: [1, 2, 5, 10], default_bl: 1, cver: '2025.04.09-2' },
    asset_version: '2025.04.3',
    has_local_assets: false,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_b', 'vs30fjordhoard', '1.0.9', '7f55e03'),
  }),
  entry({
    symbol: 'vs50rimevault',
    slug: 'rime-crown-vault',
    title: 'Rime Crown Vault',
    provider_id: 'prov_b',
    family: 'video-slot',
    lines: 50,
    integration_mode: 'operator-wallet',
    installed_version: '1.6.1',
    operator_wallet_default: true,
    features: { bonus: true, collect: false, free_spins: true, buy_feature: true, special_bet: false },
    asset_version: '2025.02.2',
    has_local_assets: true,
    certified_browsers: SLOT_BROWSERS,
    release: accepted('prov_b', 'vs50rimevault', '1.6.1', 'ad06f4e'),
  }),

  // ── prov_c — Cinder Originals: native titles, per-title wallet opt-in ──────
  entry({
    symbol: 'cnmines',
    slug: 'ember-mines',
    title: 'Ember Mines',
    provider_id: 'prov_c',
    family: 'mines',
    integration_mode: 'operator-wallet',
    installed_version: '1.5.0',
    operator_wallet_default: false,
    demo_enable: true,
    features: { ...NO_FEATURES, collect: true },
    asset_version: '2025.04.2',
    has_local_assets: true,
    certified_browsers: ALL_BROWSERS,
    release: accepted('prov_c', 'cnmines', '1.5.0', '4be9d21'),
  }),
  entry({
    symbol: 'cnhilo',
    slug: 'ash-hilo',
    title: 'Ash Hi-Lo',
    provider_id: 'prov_c',
    family: 'hilo',
    integration_mode: 'operator-wallet',
    installed_version: '1.3.2',
    operator_wallet_default: false,
    demo_enable: true,
    features: { ...NO_FEATURES, collect: true },
    asset_version: '2025.04.2',
    has_local_assets: true,
    certified_browsers: ALL_BROWSERS,
    release: accepted('prov_c', 'cnhilo', '1.3.2', '8c61f0a'),
  }),
  entry({
    symbol: 'cndice',
    slug: 'spark-dice',
    title: 'Spark Dice',
    provider_id: 'prov_c',
    family: 'dice',
    integration_mode: 'operator-wallet',
    installed_version: '1.1.7',
    operator_wallet_default: false,
    demo_enable: false,
    features: NO_FEATURES,
    asset_version: '2025.03.4',
    has_local_assets: false,
    certified_browsers: ALL_BROWSERS,
    release: accepted('prov_c', 'cndice', '1.1.7', '2e7d6c5'),
  }),
  entry({
    symbol: 'cnplinko',
    slug: 'cinder-drop',
    title: 'Cinder Drop',
    provider_id: 'prov_c',
    family: 'plinko',
    integration_mode: 'sandbox-only',
    installed_version: '0.9.0',
    operator_wallet_default: false,
    demo_enable: false,
    features: NO_FEATURES,
    asset_version: '2025.05.0',
    has_local_assets: false,
    certified_browsers: DESKTOP_CHROME_ONLY,
    release: blocked('0.9.0', NOT_SUBMITTED),
  }),
  entry({
    symbol: 'cnlimbo',
    slug: 'kiln-limbo',
    title: 'Kiln Limbo',
    provider_id: 'prov_c',
    family: 'limbo',
    integration_mode: 'sandbox-only',
    installed_version: '0.4.3',
    operator_wallet_default: false,
    demo_enable: false,
    features: NO_FEATURES,
    asset_version: '2025.05.0',
    has_local_assets: false,
    certified_browsers: DESKTOP_CHROME_ONLY,
    release: blocked('0.4.3', NOT_SUBMITTED),
  }),

  // ── prov_d — Dash Crash: two opted-in crash titles and one demo ────────────
  entry({
    symbol: 'dcrash1',
    slug: 'rocket-rise',
    title: 'Rocket Rise',
    provider_id: 'prov_d',
    family: 'crash',
    integration_mode: 'operator-wallet',
    installed_version: '2.2.0',
    operator_wallet_default: true,
    features: { ...NO_FEATURES, collect: true },
    asset_version: '2025.03.3',
    has_local_assets: true,
    certified_browsers: ALL_BROWSERS,
    crash_currencies: ['USD'],
    release: accepted('prov_d', 'dcrash1', '2.2.0', 'f18c2b7'),
  }),
  entry({
    symbol: 'dcrash2',
    slug: 'comet-climb',
    title: 'Comet Climb',
    provider_id: 'prov_d',
    family: 'crash',
    integration_mode: 'operator-wallet',
    installed_version: '1.7.5',
    operator_wallet_default: true,
    features: { ...NO_FEATURES, collect: true },
    asset_version: '2025.04.4',
    has_local_assets: true,
    certified_browsers: ALL_BROWSERS,
    crash_currencies: ['USD', 'EUR', 'GBP'],
    release: accepted('prov_d', 'dcrash2', '1.7.5', '6a3e9d8'),
  }),
  entry({
    symbol: 'dcrash3',
    slug: 'paper-kite',
    title: 'Paper Kite',
    provider_id: 'prov_d',
    family: 'crash',
    integration_mode: 'demo-only',
    installed_version: '0.6.1',
    operator_wallet_default: false,
    features: { ...NO_FEATURES, collect: true },
    asset_version: '2025.05.1',
    has_local_assets: false,
    certified_browsers: ['chrome', 'firefox'],
    crash_currencies: null,
    release: blocked('0.6.1', DEMO_BUILD),
  }),
]);

const BY_SYMBOL = new Map(CATALOG.map((e) => [e.symbol, e] as const));
const BY_SLUG = new Map(CATALOG.map((e) => [e.slug, e] as const));

/** Exact lookup by symbol, then by slug. Unknown input returns undefined. */
export function findEntry(symbolOrSlug: string): CatalogEntry | undefined {
  return BY_SYMBOL.get(symbolOrSlug) ?? BY_SLUG.get(symbolOrSlug);
}

/**
 * Relative launch path of a title, or null when it has no production launch
 * (demo-only and sandbox-only builds).
 */
export function launchPathFor(entry: CatalogEntry): string | null {
  if (entry.integration_mode !== 'operator-wallet') return null;
  switch (entry.provider_id) {
    case 'prov_a':
    case 'prov_b':
      return `/gs2c/html5Game.do?symbol=${encodeURIComponent(entry.symbol)}`;
    case 'prov_c':
      return `/native/${encodeURIComponent(entry.slug)}/`;
    case 'prov_d':
      return `/games/${encodeURIComponent(entry.slug)}/`;
  }
}
