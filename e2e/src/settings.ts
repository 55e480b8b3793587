/**
 * The go-live run's settings, parsed once from the environment (the `golive` CLI turns its flags
 * into these variables). Nothing else in the suite reads `process.env` for configuration.
 *
 * Without GOLIVE_BASE_URL the suite starts the default stack itself (src/default-stack.ts), or
 * with GOLIVE_STACK=cluster the cluster stack (the production topology, over HTTPS), and checks it
 * with the demo operator's key and the games that operator is expected to have.
 */

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CHROMIUM } from '@opi/config';
import { z } from 'zod';

export const E2E_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What the default stack's demo operator (`op_demo`) must offer: every title it is assigned
 * whose release is accepted and whose transport is open (prov_b is switched off by default).
 * Rocket Rise supports USD only; the operator's default currency is EUR.
 */
export const DEFAULT_STACK_GAMES =
  'vs20emberfox,vs25tidalpearl,vs40jadelantern,vs243copperkiln,vs20starorchard,cnmines,cnhilo,dcrash1:USD,dcrash2';

/** One game per family, the CI subset (with the desktop and phone-portrait projects). */
export const CI_PLAY = 'vs20emberfox,cnmines,dcrash2';

export const DEVICE_PROJECTS = ['desktop', 'phone-portrait', 'phone-landscape', 'tablet'] as const;
export type DeviceProject = (typeof DEVICE_PROJECTS)[number];

export interface ExpectedGame {
  /** A symbol or slug, as the catalog lists it. */
  symbol: string;
  /** The launch currency for this game (else GOLIVE_CURRENCY, else the operator's default). */
  currency?: string;
}

const gameList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^[A-Za-z0-9_.-]{1,64}(:[A-Z]{3})?$/, 'symbol or symbol:CUR (a three-letter currency)'),
      )
      .min(1, 'at least one game'),
  )
  .transform((list) =>
    list.map((g): ExpectedGame => {
      const [symbol, currency] = g.split(':') as [string, string | undefined];
      return currency ? { symbol, currency } : { symbol };
    }),
  );

const httpUrl = z
  .string()
  .url()
  .refine((v) => ['http:', 'https:'].includes(new URL(v).protocol), 'an http:// or https:// URL');

const Env = z.object({
  /** The service base address. Unset: the suite starts the default stack and checks it. */
  GOLIVE_BASE_URL: httpUrl.optional(),
  /** The operator API key (every request is signed with it). Required with GOLIVE_BASE_URL. */
  GOLIVE_API_KEY: z.string().min(8).optional(),
  /** The operator's return URL given at launch; the suite intercepts it (no lobby is needed). */
  GOLIVE_RETURN_URL: httpUrl.default('https://lobby.golive.test/return?from=golive'),
  /** The games the operator catalog must hold, exactly: `symbol[:CUR],...`. */
  GOLIVE_GAMES: gameList.optional(),
  /** The games to play (default: every expected game); each must be one of GOLIVE_GAMES. */
  GOLIVE_PLAY: gameList.optional(),
  /**
   * The player id per game and device: `{operator}`, `{run}`, `{device}` and `{game}` are filled in.
   * Each game and device needs its own player (or run with --workers=1): a relaunch of the same
   * player, game and currency supersedes the previous launch URL.
   */
  GOLIVE_PLAYER: z.string().min(1).default('{operator}-qa-{run}-{device}-{game}'),
  GOLIVE_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
  GOLIVE_LANG: z.string().min(2).max(16).optional(),
  /** Where the HTML report, the JSON summary and the screenshots go. */
  GOLIVE_OUTPUT: z.string().min(1).default(path.join(E2E_ROOT, 'golive-report')),
  /** The browser; default Debian's chromium when present, else a browser Playwright already has. */
  GOLIVE_CHROMIUM: z.string().min(1).optional(),
  /** How long a round may take to play and settle, and the audit API to show it (ms). */
  GOLIVE_ROUND_TIMEOUT_MS: z.coerce.number().int().min(5_000).default(60_000),
  /** Set by the suite: an id for this run's player ids, and the reconciliation window's start. */
  GOLIVE_RUN_ID: z.string().optional(),
  GOLIVE_RECONCILE_FROM: z.string().optional(),
  /** Set by the suite when it started the default stack itself. */
  GOLIVE_STACK_STARTED: z.string().optional(),
  /**
   * Which stack the suite starts when there is no GOLIVE_BASE_URL: `default` (what `npm start`
   * runs) or `cluster` (`npm run start:cluster`: the production topology, HTTPS with a local
   * certificate). (GOLIVE_STACK_<NAME> variables are something else: settings for that stack.)
   */
  GOLIVE_STACK: z.enum(['default', 'cluster']).default('default'),
  /**
   * A PEM file of certificates to trust besides the public roots (an environment's private CA):
   * the suite's Node processes get it as NODE_EXTRA_CA_CERTS, and Chromium accepts a server chain
   * that holds one of its certificates. Set by the suite to the cluster stack's certificate when it
   * starts that stack.
   */
  GOLIVE_CA_FILE: z.string().min(1).optional(),
  /**
   * The sandbox wallet's staff API (server root, e.g. http://127.0.0.1:8090) and its admin token,
   * when the environment's wallet is the sandbox: the player_protection item has it refuse the
   * test player's debits. Set by the suite when it starts a stack; unset, that item is
   * not checkable (an operator's own wallet has no such switch).
   */
  GOLIVE_WALLET_ADMIN_URL: httpUrl.optional(),
  GOLIVE_WALLET_ADMIN_TOKEN: z.string().min(1).optional(),
  /**
   * A staff account with the admin role for the operator (the staff portal's), to run the wallet
   * diagnostics through the staff API: the promo_win_credit item. Set by the suite to the default
   * stack's demo account when it starts a stack; unset, that item is not checkable.
   */
  GOLIVE_STAFF_USERNAME: z.string().min(1).optional(),
  GOLIVE_STAFF_PASSWORD: z.string().min(1).optional(),
  /** The wallet diagnostics' test player, an account in the operator's wallet (default `{operator}-diagnostics`). */
  GOLIVE_DIAGNOSTICS_PLAYER: z.string().min(1).max(64).optional(),
});

export interface Settings {
  baseUrl?: string;
  apiKey?: string;
  returnUrl: string;
  expected: ExpectedGame[];
  play: ExpectedGame[];
  playerTemplate: string;
  currency?: string;
  lang?: string;
  outputDir: string;
  chromium?: string;
  roundTimeoutMs: number;
  runId: string;
  reconcileFrom?: string;
  stackStarted: boolean;
  /** The stack the suite starts (or started) when no base URL is given. */
  stack: 'default' | 'cluster';
  /** Certificates trusted besides the public roots (GOLIVE_CA_FILE), an absolute path. */
  caFile?: string;
  /** The sandbox wallet's staff API, when the wallet under test is the sandbox. */
  walletAdmin?: { baseUrl: string; token: string };
  /** An admin staff account of the operator, for the wallet diagnostics (promo_win_credit). */
  staff?: { username: string; password: string };
  /** The wallet diagnostics' test player, if not `{operator}-diagnostics`. */
  diagnosticsPlayer?: string;
}

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new SettingsError(`invalid go-live settings:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.GOLIVE_BASE_URL && !e.GOLIVE_API_KEY)
    throw new SettingsError('GOLIVE_API_KEY (--api-key) is required with GOLIVE_BASE_URL (--base-url)');
  if (e.GOLIVE_BASE_URL && e.GOLIVE_STACK === 'cluster' && !e.GOLIVE_STACK_STARTED)
    throw new SettingsError(
      'GOLIVE_STACK=cluster (--cluster) starts a stack to check: it takes no GOLIVE_BASE_URL (--base-url)',
    );
  if (e.GOLIVE_BASE_URL && !e.GOLIVE_GAMES && !e.GOLIVE_STACK_STARTED)
    throw new SettingsError('GOLIVE_GAMES (--games) is required with GOLIVE_BASE_URL (--base-url)');
  const expected = e.GOLIVE_GAMES ?? (gameList.parse(DEFAULT_STACK_GAMES) as ExpectedGame[]);
  const play = (e.GOLIVE_PLAY ?? expected).map((p) => {
    const known = expected.find((g) => g.symbol === p.symbol);
    if (!known) throw new SettingsError(`GOLIVE_PLAY: ${p.symbol} is not one of the expected games`);
    return p.currency ? p : known;
  });
  const chromium = e.GOLIVE_CHROMIUM ?? (existsSync(DEFAULT_CHROMIUM) ? DEFAULT_CHROMIUM : undefined);
  return {
    ...(e.GOLIVE_BASE_URL ? { baseUrl: e.GOLIVE_BASE_URL.replace(/\/+$/, '') } : {}),
    ...(e.GOLIVE_API_KEY ? { apiKey: e.GOLIVE_API_KEY } : {}),
    returnUrl: e.GOLIVE_RETURN_URL,
    expected,
    play,
    playerTemplate: e.GOLIVE_PLAYER,
    ...(e.GOLIVE_CURRENCY ? { currency: e.GOLIVE_CURRENCY } : {}),
    ...(e.GOLIVE_LANG ? { lang: e.GOLIVE_LANG } : {}),
    outputDir: path.resolve(e.GOLIVE_OUTPUT),
    ...(chromium ? { chromium } : {}),
    roundTimeoutMs: e.GOLIVE_ROUND_TIMEOUT_MS,
    runId: e.GOLIVE_RUN_ID ?? 'local',
    ...(e.GOLIVE_RECONCILE_FROM ? { reconcileFrom: e.GOLIVE_RECONCILE_FROM } : {}),
    stackStarted: Boolean(e.GOLIVE_STACK_STARTED),
    stack: e.GOLIVE_STACK,
    ...(e.GOLIVE_CA_FILE ? { caFile: path.resolve(e.GOLIVE_CA_FILE) } : {}),
    ...(e.GOLIVE_WALLET_ADMIN_URL && e.GOLIVE_WALLET_ADMIN_TOKEN
      ? {
          walletAdmin: {
            baseUrl: e.GOLIVE_WALLET_ADMIN_URL.replace(/\/+$/, ''),
            token: e.GOLIVE_WALLET_ADMIN_TOKEN,
          },
        }
      : {}),
    ...(e.GOLIVE_STAFF_USERNAME && e.GOLIVE_STAFF_PASSWORD
      ? { staff: { username: e.GOLIVE_STAFF_USERNAME, password: e.GOLIVE_STAFF_PASSWORD } }
      : {}),
    ...(e.GOLIVE_DIAGNOSTICS_PLAYER ? { diagnosticsPlayer: e.GOLIVE_DIAGNOSTICS_PLAYER } : {}),
  };
}

/** The environment under test, once global setup has run (it starts the stack when needed). */
export function target(settings: Settings): { baseUrl: string; apiKey: string } {
  if (!settings.baseUrl || !settings.apiKey)
    throw new SettingsError('no environment under test: GOLIVE_BASE_URL and GOLIVE_API_KEY are unset');
  return { baseUrl: settings.baseUrl, apiKey: settings.apiKey };
}

/** Whether a host name is this machine (loopback): HTTP there is a warning, not a failure. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The player id of one game on one device (at most 64 characters, as the launch requires). */
export function playerId(settings: Settings, operatorId: string, device: string, game: string): string {
  const id = settings.playerTemplate
    .replaceAll('{operator}', operatorId)
    .replaceAll('{run}', settings.runId)
    .replaceAll('{device}', device)
    .replaceAll('{game}', game);
  if (id.length <= 64) return id;
  // Too long: a prefix and a hash of the whole id keep it unique.
  return `${id.slice(0, 52)}-${createHash('sha256').update(id).digest('hex').slice(0, 11)}`;
}
