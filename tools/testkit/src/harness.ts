import type { Server } from 'node:http';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '@opi/api/app';
import { seedCatalog } from '@opi/api/catalog/seed';
import { createDeps } from '@opi/api/create-deps';
import type { ApiDeps } from '@opi/api/deps';
import { settlementProbe } from '@opi/api/settlement/settlement-probe';
import { createLogger, loadConfig } from '@opi/config';
import { createSecretBox, ensureBootstrapAdminKey } from '@opi/db';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import { createGameApp } from '@opi/game-server/app';
import { createGameDeps } from '@opi/game-server/create-deps';
import type { GameDeps } from '@opi/game-server/deps';
import { newRequestNonce, replayKeyring, signOperatorRequest, unixSeconds } from '@opi/signing';
import { installTemporalRuntime, testTemporalLevel } from '@opi/workflows/worker';

export const SERVICE_SECRET = 'test-service-secret-0123456789abcdef';
/** The tests' REPLAY_LINK_SECRET (issue 34): replay links are signed with a key of their own. */
export const REPLAY_LINK_SECRET = 'test-replay-link-secret-0123456789abcdef';
/** The keys the tests' game server accepts: REPLAY_LINK_SECRET's, and the legacy SERVICE_SECRET one. */
export const TEST_REPLAY_KEYS = replayKeyring({ secret: REPLAY_LINK_SECRET, legacySecret: SERVICE_SECRET });
export const ADMIN_KEY = 'padm_test_admin_key_0123456789abcdefghijkl';
/** The tests' GAME_BASE_URL: every launch URL starts with it. */
export const GAME_BASE_URL = 'http://games.test';

/** A launch URL (or any URL on GAME_BASE_URL) as a URL of this harness's game server. */
export function gameUrl(h: Pick<Harness, 'game'>, url: string): string {
  return url.startsWith(GAME_BASE_URL) ? h.game + url.slice(GAME_BASE_URL.length) : url;
}

/**
 * The API's probe of the settlement runtime for this harness (the launch's 502 verdict:
 * services/api/src/settlement/settlement-probe.ts), or null without Temporal. The game server's
 * tests reach it here, as they reach the API itself.
 */
export function launchProbe(h: Pick<Harness, 'deps'>) {
  return settlementProbe(h.deps);
}

export interface Harness {
  db: TestDatabase;
  /** The operator API (services/api). */
  base: string;
  server: Server;
  /** The game server (services/game-server): the pages and runtime routes launch URLs point at. */
  game: string;
  gameServer: Server;
  env: Record<string, string>;
  deps: ApiDeps;
  gameDeps: GameDeps;
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Another harness's database: this API becomes a second process on it (already seeded; it is
   * not dropped on close, so close this harness before the one that created the database).
   */
  db?: TestDatabase;
}

/**
 * A test database with the catalog seeded, the bootstrap admin key, and both services on free
 * ports in this process: the operator API (`base`) and the game server (`game`). Launch URLs name
 * GAME_BASE_URL (http://games.test): `gameUrl` turns one into a URL of this game server.
 */
export async function startApi(
  extraEnv: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Harness> {
  const shared = options.db !== undefined;
  const db = options.db ?? (await createTestDatabase());
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    SERVICE_SECRET,
    REPLAY_LINK_SECRET,
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://api.test',
    GAME_BASE_URL: GAME_BASE_URL,
    // Tests that start their own worker keep it the only one unless they ask for the hosted one.
    GAME_SETTLEMENT_WORKER: 'off',
    // Jackpots that hit on every spin (hit_every_minor 1) return far more than any ceiling: the
    // tests that define them need none. The ceiling's own test sets it (jackpots/ceiling.test.ts).
    JACKPOT_MAX_SHARE_PPM: 'none',
    ...extraEnv,
  };
  // The SDK's own lines in this test process (its hosted worker's, the test's own workers'): one
  // JSON line each, warnings and errors only unless the run sets LOG_LEVEL. Once per process.
  const sdkLevel = testTemporalLevel();
  installTemporalRuntime({ level: sdkLevel, log: createLogger('temporal', sdkLevel) });
  const config = loadConfig(env);
  const deps = await createDeps(config);
  const gameDeps = await createGameDeps(config);
  if (!shared) {
    await seedCatalog(deps.pool);
    await ensureBootstrapAdminKey(deps.pool, createSecretBox(SERVICE_SECRET), ADMIN_KEY);
  }
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gameServer = createGameApp(gameDeps).listen(0, '127.0.0.1');
  await new Promise((r) => gameServer.once('listening', r));
  const game = `http://127.0.0.1:${(gameServer.address() as AddressInfo).port}`;
  return {
    db,
    base,
    server,
    game,
    gameServer,
    env,
    deps,
    gameDeps,
    async close() {
      for (const s of [server, gameServer]) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
      await gameDeps.close();
      await deps.close();
      if (!shared) await db.drop();
    },
  };
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sign the request with the key (pp-operator-v1). */
  sign?: boolean;
  nonce?: string;
  timestamp?: string;
}

/** One HTTP call; the JSON body is serialised once and those exact bytes are signed and sent. */
export async function call(base: string, method: string, pathAndQuery: string, opts: CallOptions = {}) {
  const raw =
    opts.body === undefined ? '' : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    ...(raw ? { 'content-type': 'application/json' } : {}),
    ...opts.headers,
  };
  if (opts.key) headers['x-provider-api-key'] = opts.key;
  if (opts.sign && opts.key) {
    const timestamp = opts.timestamp ?? unixSeconds();
    const nonce = opts.nonce ?? newRequestNonce();
    headers['x-pp-timestamp'] = timestamp;
    headers['x-pp-nonce'] = nonce;
    headers['x-pp-signature'] = signOperatorRequest(opts.key, {
      timestamp,
      nonce,
      method,
      pathAndQuery,
      body: raw,
    });
  }
  if (raw && (method === 'GET' || method === 'HEAD'))
    return rawCall(base, method, pathAndQuery, headers, raw);
  const res = await fetch(base + pathAndQuery, { method, headers, ...(raw ? { body: raw } : {}) });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** A request fetch() will not send (a GET with a body), over node:http. */
function rawCall(
  base: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  raw: string,
) {
  return new Promise<{ status: number; json: any; text: string; headers: Headers }>((resolve, reject) => {
    const req = http.request(
      base + pathAndQuery,
      { method, headers: { ...headers, 'content-length': Buffer.byteLength(raw) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {}
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode ?? 0, json, text, headers: h });
        });
      },
    );
    req.on('error', reject);
    req.end(raw);
  });
}

/** Creates an operator with an operator key through the admin API. */
export async function createOperator(
  base: string,
  operatorId: string,
  over: Record<string, unknown> = {},
): Promise<{ key: string; keyId: string; walletSecret: string }> {
  const created = await call(base, 'POST', '/api/admin/v1/operators', {
    key: ADMIN_KEY,
    sign: true,
    body: {
      operator_id: operatorId,
      name: `Operator ${operatorId}`,
      default_currency: 'EUR',
      allowed_currencies: ['EUR', 'USD'],
      wallet_base_url: 'http://127.0.0.1:9/wallet',
      ...over,
    },
  });
  if (created.status !== 201) throw new Error(`create operator: ${created.status} ${created.text}`);
  const key = await call(base, 'POST', `/api/admin/v1/operators/${operatorId}/api-keys`, {
    key: ADMIN_KEY,
    body: {},
    sign: true,
  });
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${key.text}`);
  return {
    key: key.json.data.api_key,
    keyId: key.json.data.key_id,
    walletSecret: created.json.data.wallet_secret,
  };
}

/** Assigns titles to an operator through the admin API. */
export async function assign(base: string, operatorId: string, symbols: string[], enabled = true) {
  for (const symbol of symbols) {
    const res = await call(base, 'PUT', `/api/admin/v1/operators/${operatorId}/games/${symbol}`, {
      key: ADMIN_KEY,
      body: { enabled },
      sign: true,
    });
    if (res.status !== 200) throw new Error(`assign ${symbol}: ${res.status} ${res.text}`);
  }
}

/** A free loopback port for a server bound later (outside the ephemeral range: see @opi/devstack/wait). */
export { freePort } from '@opi/devstack/wait';

/** Resolves when `GET /health` on the port answers 200. */
export async function waitForHealth(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no API on port ${port}`);
}
