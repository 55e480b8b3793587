import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@opi/config';
import { createSecretBox, type Pool } from '@opi/db';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import { replayLinkKey, roundDetailsUrl } from '@opi/signing';
import { type FamilyId, type RoundIntent, transactionIdsFor } from '@opi/wallet/intent';
import { createWalletApp, type WalletApp } from '@opi/wallet-sandbox';
import { createWalletAdminClient, type WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities.js';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';
import { installTemporalRuntime, testTemporalLevel } from '../runtime-logger.js';
import { recordRound } from '../settle-round/start.js';

export const SERVICE_SECRET = 'settlement-test-service-secret-0123456789';
export const WALLET_SECRET = 'wsec_settlement_test_secret_0123456789';
export const WALLET_ADMIN_TOKEN = 'settlement-test-admin-token-0123';
export const OPERATOR_ID = 'op_settle';
/** The game origin the workers' replay links name (issue 26: the round's credit carries its link). */
export const REPLAY_BASE_URL = 'http://games.test';

/**
 * Everything a settlement test needs, all real: a cloned PostgreSQL database (platform and wallet
 * schemas), the sandbox wallet over HTTP, the Temporal dev server started by `npm test`, and a
 * worker running the ahead-of-time bundle with the real activities.
 */
export interface SettlementEnv {
  db: TestDatabase;
  pool: Pool;
  wallet: { app: WalletApp; server: Server; base: string; admin: WalletAdminClient };
  client: Client;
  taskQueue: string;
  address: string;
  /** Starts an in-process worker; returns a stopper. */
  /** A worker on the task queue (a versioned one with `deployment`); resolves with its stop. */
  startWorker(opts?: { deployment?: { name: string; buildId: string } }): Promise<() => Promise<void>>;
  /** Creates a player (in the wallet too, with a balance) and an open session; returns ids. */
  newPlayer(opts?: { currency?: string; balanceMinor?: number; family?: FamilyId }): Promise<PlayerSession>;
  /** Records a round and its intent (as the game runtime does) and returns the intent. */
  newRound(
    p: PlayerSession,
    opts: {
      stakeMinor: number;
      winMinor: number | null;
      multiStep?: RoundIntent['multiStep'];
      /** Record it as the slot spin does: the debit's journal row written with the round. */
      journalAhead?: boolean;
      /** The slot spin's one-step first attempt (debit then credit in one local activity). */
      oneStep?: boolean;
      /** The credit's journal row written with the round too (the slot spin's, issue 36). */
      creditAhead?: boolean;
    },
  ): Promise<RoundIntent>;
  close(): Promise<void>;
}

export interface PlayerSession {
  playerPk: string;
  externalId: string;
  sessionId: string;
  currency: string;
  family: FamilyId;
  symbol: string;
}

const SYMBOL_BY_FAMILY: Record<FamilyId, string> = {
  prov_a: 't_slot_a',
  prov_b: 't_slot_b',
  prov_c: 't_mines',
  prov_d: 't_crash',
};

export async function startSettlementEnv(): Promise<SettlementEnv> {
  const address = process.env.OPI_TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('OPI_TEST_TEMPORAL_ADDRESS is not set: run through npm test');
  // The SDK's own lines: one JSON line each, warnings and errors unless the run sets LOG_LEVEL.
  const sdkLevel = testTemporalLevel();
  installTemporalRuntime({ level: sdkLevel, log: createLogger('temporal', sdkLevel) });
  const db = await createTestDatabase();
  const pool = db.pool;
  const box = createSecretBox(SERVICE_SECRET);

  const app = createWalletApp({ pool, adminToken: WALLET_ADMIN_TOKEN });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = createWalletAdminClient({ baseUrl: base, token: WALLET_ADMIN_TOKEN });
  await admin.setSecret(OPERATOR_ID, WALLET_SECRET);

  await pool.query(
    `INSERT INTO operators (operator_id, name, default_currency, allowed_currencies, wallet_base_url, wallet_secret_enc)
     VALUES ($1, 'Settlement test', 'EUR', ARRAY['EUR','USD','JPY','BHD'], $2, $3)`,
    [OPERATOR_ID, `${base}/wallet`, box.encrypt(WALLET_SECRET)],
  );
  for (const [family, symbol] of Object.entries(SYMBOL_BY_FAMILY)) {
    await pool.query(
      `INSERT INTO games (symbol, slug, title, provider_id, provider, integration_mode, installed_version)
       VALUES ($1, $1, $1, $2, 'Test', 'operator-wallet', '1.0.0')`,
      [symbol, family],
    );
  }

  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `settle-${randomUUID()}`;
  const stoppers: Array<() => Promise<void>> = [];

  return {
    db,
    pool,
    wallet: { app, server, base, admin },
    client,
    taskQueue,
    address,
    async startWorker(opts: { deployment?: { name: string; buildId: string } } = {}) {
      const nativeConnection = await NativeConnection.connect({ address });
      const worker = await Worker.create({
        connection: nativeConnection,
        taskQueue,
        ...(opts.deployment
          ? {
              workerDeploymentOptions: {
                useWorkerVersioning: true,
                version: { deploymentName: opts.deployment.name, buildId: opts.deployment.buildId },
                defaultVersioningBehavior: 'PINNED' as const,
              },
              identity: `worker-${opts.deployment.buildId}`,
            }
          : {}),
        workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
        activities: createActivities({
          pool,
          box,
          settlement: {
            walletTimeoutMs: 2000,
            stuckAfterAttempts: 3,
            requireHttps: false,
          },
        }),
      });
      const running = worker.run();
      let stopped = false;
      const stop = async () => {
        if (stopped) return;
        stopped = true;
        worker.shutdown();
        await running;
        await nativeConnection.close();
      };
      stoppers.push(stop);
      return stop;
    },
    async newPlayer(opts = {}) {
      const currency = opts.currency ?? 'EUR';
      const family = opts.family ?? 'prov_b';
      const externalId = `pl-${randomUUID().slice(0, 8)}`;
      const playerPk = `p_${randomUUID()}`;
      const sessionId = `s_${randomUUID()}`;
      await pool.query(
        `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ($1, $2, $3, 'global')`,
        [playerPk, OPERATOR_ID, externalId],
      );
      await pool.query(
        `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [sessionId, OPERATOR_ID, playerPk, SYMBOL_BY_FAMILY[family], family, currency],
      );
      await admin.createPlayer({
        operatorId: OPERATOR_ID,
        playerId: externalId,
        currency,
        balanceMinor: opts.balanceMinor ?? 100_000,
      });
      return { playerPk, externalId, sessionId, currency, family, symbol: SYMBOL_BY_FAMILY[family] };
    },
    async newRound(p, opts) {
      const roundId = `r_${randomUUID()}`;
      const intent: RoundIntent = {
        roundId,
        operatorId: OPERATOR_ID,
        sessionId: p.sessionId,
        playerId: p.externalId,
        gameSymbol: p.symbol,
        providerId: p.family,
        currency: p.currency,
        actionType: opts.winMinor === null ? 'play' : 'spin',
        stakeMinor: String(opts.stakeMinor),
        winMinor: opts.winMinor === null ? null : String(opts.winMinor),
        transactions: transactionIdsFor(roundId),
        // As the game server fixes it with the round (issue 26): the credit carries it.
        detailsUrl: roundDetailsUrl(REPLAY_BASE_URL, replayLinkKey(SERVICE_SECRET), roundId),
        ...(opts.multiStep ? { multiStep: opts.multiStep } : {}),
        ...(opts.journalAhead ? { journalAhead: true } : {}),
        ...(opts.oneStep ? { oneStep: true } : {}),
        ...(opts.creditAhead ? { creditAhead: true } : {}),
      };
      await recordRound(pool, { intent, playerPk: p.playerPk });
      return intent;
    },
    async close() {
      for (const stop of stoppers) await stop().catch(() => {});
      await connection.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.drop();
    },
  };
}

/** Polls until `check` is true (or fails after timeoutMs). */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
