import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '@opi/config';
import { createSecretBox } from '@opi/db';
import { createWalletApp } from '@opi/wallet-sandbox';
import { createWalletAdminClient, type WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { createActivities, WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import {
  ADMIN_KEY,
  assign,
  call,
  createOperator,
  type Harness,
  SERVICE_SECRET,
  startApi,
} from './harness.js';

/*
 * The world the play tests share, real parts only: the API (startApi) on a fresh database with
 * Temporal on a fresh task queue, the sandbox wallet over HTTP on the same database, operators
 * whose wallet is that sandbox (made through the admin API, titles assigned), an in-process
 * settlement worker on the task queue, and on request a Temporal client, a master key, a second
 * API process on the same database and a Chromium that resolves games.test to the game server.
 */

/** The browser tests' devices: a 1280x800 desktop and a 390x844 touch phone. */
export const DESKTOP = { viewport: { width: 1280, height: 800 } };
export const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
};
/** Where the browser tests' launches return to: answered in the browser (see lobbyContext). */
export const LOBBY_ORIGIN = 'https://lobby.operator.test';

/** The wallet secret operators get unless they name one. */
export const PLAY_WALLET_SECRET = 'wsec_play_world_secret_0123456789abcd';

export interface OperatorSpec {
  id: string;
  /** More createOperator settings (name, currencies, jurisdiction, ...). */
  settings?: Record<string, unknown>;
  /** Titles assigned to the operator. */
  titles?: string[];
  /** The secret it is configured with (default: the world's walletSecret). */
  walletSecret?: string;
  /**
   * 'sandbox' (default): its wallet is the sandbox, which holds its secret. 'unregistered': its
   * wallet is the sandbox, which was never told its secret. 'none': createOperator's default
   * (unreachable) wallet.
   */
  wallet?: 'sandbox' | 'unregistered' | 'none';
}

export interface PlayOperator {
  id: string;
  key: string;
  keyId: string;
  walletSecret: string;
}

export interface PlayWorldOptions {
  /** Prefix of the task queue's name (a UUID follows). */
  queue?: string;
  /**
   * false: the API without Temporal (no TEMPORAL_ADDRESS or task queue, no worker, no client), for
   * tests that play no settled round.
   */
  temporal?: boolean;
  /** Extra API environment (e.g. NATIVE_ABANDON_AFTER_SECONDS). */
  env?: Record<string, string>;
  /** The sandbox wallet's admin token (default: a random one). */
  walletAdminToken?: string;
  /** The secret operators get unless their spec names one. */
  walletSecret?: string;
  /** Operators made before the tests, in order. */
  operators?: OperatorSpec[];
  /** Titles whose operator-wallet flag is turned on (admin API). */
  operatorWalletTitles?: string[];
  /** A master key in `masterKey`. */
  masterKey?: boolean;
  /**
   * The in-process settlement worker: true (default), its activities' settlement options, or
   * false for tests that run their own worker processes.
   */
  worker?: boolean | { settlement?: Parameters<typeof createActivities>[0]['settlement'] };
  /** A Temporal client in `client`. */
  client?: boolean;
  /** A second API process on the same database (its own pool and caches) in `h2`. */
  secondApi?: boolean;
  /** Chromium (OPI_TEST_CHROMIUM or the default) mapping games.test to the game server, plus these rules. */
  browser?: boolean | { hostRules?: string[] };
}

export interface LaunchResult {
  json: any;
  url: URL;
  sessionId: string;
  /** The slot page's session token (mgckey), if the URL has one. */
  token: string | null;
  /** The native page's grant, if the URL has one. */
  grant: string | null;
  /** The crash page's login grant, if the URL has one. */
  login: string | null;
}

export interface PlayWorld {
  h: Harness;
  /** The second API process (secondApi). */
  h2: Harness | undefined;
  address: string;
  taskQueue: string;
  walletBase: string;
  walletAdminToken: string;
  walletSecret: string;
  admin: WalletAdminClient;
  /** The operators made so far, by id. */
  operators: Record<string, PlayOperator>;
  /** The key of the first operator in `options.operators`. */
  key: string;
  masterKey: string | undefined;
  client: Client | undefined;
  browser: Browser | undefined;
  /** A browser context on `browser` in which the operator's lobby (LOBBY_ORIGIN) answers a page. */
  lobbyContext(device: BrowserContextOptions): Promise<BrowserContext>;
  addOperator(spec: OperatorSpec): Promise<PlayOperator>;
  enableOperatorWallet(symbols: string[]): Promise<void>;
  /** A player with a sandbox wallet account. */
  newPlayer(
    operatorId: string,
    opts?: { prefix?: string; currency?: string; balanceMinor?: number; playerId?: string },
  ): Promise<string>;
  /** POST /api/provider/v1/launch-url with the key (asserts 200). */
  launch(key: string, body: Record<string, unknown>): Promise<LaunchResult>;
  /** A runtime call with a session token. */
  runtime(
    token: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: any; text: string; headers: Headers }>;
  /** POST /api/runtime/spin (bet_minor 100 unless the body says). */
  spin(token: string, body?: Record<string, unknown>): ReturnType<PlayWorld['runtime']>;
  /** Stops everything: browser, worker, Temporal connections, wallet, second API, API. */
  close(): Promise<void>;
}

export async function startPlayWorld(options: PlayWorldOptions = {}): Promise<PlayWorld> {
  const address = process.env.OPI_TEST_TEMPORAL_ADDRESS!;
  const taskQueue = `${options.queue ?? 'play'}-${randomUUID()}`;
  const walletAdminToken = options.walletAdminToken ?? `play-world-admin-${randomUUID()}`;
  const walletSecret = options.walletSecret ?? PLAY_WALLET_SECRET;
  const temporal = options.temporal !== false;
  const env = {
    ...(temporal ? { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue } : {}),
    ...options.env,
  };
  const stops: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const h = await startApi(env);
    stops.push(() => h.close());
    let h2: Harness | undefined;
    if (options.secondApi) {
      const second = await startApi(env, { db: h.db });
      h2 = second;
      stops.push(() => second.close());
    }
    const wallet: Server = createWalletApp({ pool: h.db.pool, adminToken: walletAdminToken }).listen(
      0,
      '127.0.0.1',
    );
    stops.push(async () => {
      wallet.closeAllConnections();
      await new Promise<void>((r) => wallet.close(() => r()));
    });
    await new Promise((r) => wallet.once('listening', r));
    const walletBase = `http://127.0.0.1:${(wallet.address() as AddressInfo).port}`;
    const admin = createWalletAdminClient({ baseUrl: walletBase, token: walletAdminToken });

    const operators: Record<string, PlayOperator> = {};
    const addOperator = async (spec: OperatorSpec): Promise<PlayOperator> => {
      const secret = spec.walletSecret ?? walletSecret;
      const mode = spec.wallet ?? 'sandbox';
      if (mode === 'sandbox') await admin.setSecret(spec.id, secret);
      const made = await createOperator(h.base, spec.id, {
        ...(mode === 'none' ? {} : { wallet_base_url: `${walletBase}/wallet`, wallet_secret: secret }),
        ...spec.settings,
      });
      if (spec.titles?.length) await assign(h.base, spec.id, spec.titles);
      const op = { id: spec.id, key: made.key, keyId: made.keyId, walletSecret: made.walletSecret };
      operators[spec.id] = op;
      return op;
    };
    const enableOperatorWallet = async (symbols: string[]) => {
      for (const symbol of symbols) {
        const res = await call(h.base, 'PUT', `/api/admin/v1/games/${symbol}/operator-wallet`, {
          key: ADMIN_KEY,
          body: { enabled: true },
          sign: true,
        });
        assert.equal(res.status, 200, res.text);
      }
    };
    await enableOperatorWallet(options.operatorWalletTitles ?? []);
    for (const spec of options.operators ?? []) await addOperator(spec);
    let masterKey: string | undefined;
    if (options.masterKey) {
      const res = await call(h.base, 'POST', '/api/admin/v1/master-keys', {
        key: ADMIN_KEY,
        body: {},
        sign: true,
      });
      assert.equal(res.status, 201, res.text);
      masterKey = res.json.data.api_key;
    }

    if (temporal && options.worker !== false) {
      const native = await NativeConnection.connect({ address });
      stops.push(() => native.close());
      const worker = await Worker.create({
        connection: native,
        taskQueue,
        workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
        activities: createActivities({
          pool: h.db.pool,
          box: createSecretBox(SERVICE_SECRET),
          settlement: {
            ...(typeof options.worker === 'object' ? options.worker.settlement : {}),
          },
        }),
      });
      const running = worker.run();
      stops.push(async () => {
        worker.shutdown();
        await running;
      });
    }
    let client: Client | undefined;
    if (temporal && options.client) {
      const connection = await Connection.connect({ address });
      stops.push(() => connection.close());
      client = new Client({ connection });
    }
    let browser: Browser | undefined;
    if (options.browser) {
      const extra = typeof options.browser === 'object' ? (options.browser.hostRules ?? []) : [];
      const rules = [`MAP games.test:80 127.0.0.1:${new URL(h.game).port}`, ...extra, 'MAP * ~NOTFOUND'];
      const { chromium } = await import('playwright-core');
      const launched = await chromium.launch({
        executablePath: process.env.OPI_TEST_CHROMIUM ?? DEFAULT_CHROMIUM,
        headless: true,
        args: [...CHROMIUM_ARGS, `--host-resolver-rules=${rules.join(', ')}`],
      });
      browser = launched;
      stops.push(() => launched.close());
    }
    // First on close: a test that turned on the wallet's faults leaves it healthy for the drain.
    stops.push(() => admin.setFaults({}).catch(() => {}));

    const runtime: PlayWorld['runtime'] = (token, method, path, body) =>
      call(h.game, method, path, {
        headers: { 'x-session-token': token },
        ...(body === undefined ? {} : { body }),
      });
    return {
      h,
      h2,
      address,
      taskQueue,
      walletBase,
      walletAdminToken,
      walletSecret,
      admin,
      operators,
      key: options.operators?.length ? operators[options.operators[0]!.id]!.key : '',
      masterKey,
      client,
      browser,
      async lobbyContext(device) {
        if (!browser) throw new Error('startPlayWorld({ browser: true }) starts the browser');
        const context = await browser.newContext(device);
        await context.route(`${LOBBY_ORIGIN}/**`, (route) =>
          route.fulfill({
            status: 200,
            contentType: 'text/html',
            body: '<!doctype html><title>Lobby</title><p>lobby',
          }),
        );
        return context;
      },
      addOperator,
      enableOperatorWallet,
      async newPlayer(operatorId, opts = {}) {
        const playerId = opts.playerId ?? `${opts.prefix ?? 'pw'}-${randomUUID().slice(0, 8)}`;
        await admin.createPlayer({
          operatorId,
          playerId,
          currency: opts.currency ?? 'EUR',
          balanceMinor: opts.balanceMinor ?? 100_000,
        });
        return playerId;
      },
      async launch(key, body) {
        const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', { key, body });
        assert.equal(res.status, 200, res.text);
        const url = new URL(res.json.launch_url);
        return {
          json: res.json,
          url,
          sessionId: res.json.session_id as string,
          token: url.searchParams.get('mgckey'),
          grant: url.searchParams.get('grant'),
          login: url.searchParams.get('login'),
        };
      },
      runtime,
      spin: (token, body = {}) => runtime(token, 'POST', '/api/runtime/spin', { bet_minor: 100, ...body }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
