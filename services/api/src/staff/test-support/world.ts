import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { startPlayWorld } from '@opi/testkit/play-world';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { recordRound, startSettlement } from '@opi/workflows';
import type { Client } from '@temporalio/client';

/*
 * A real world for the staff tests: the API with Temporal, a worker, the sandbox wallet over HTTP,
 * two operators (op_staff_a whose wallet secret matches the sandbox's, op_staff_b configured with a
 * wrong one), staff accounts made through the admin API, and real rounds played through the
 * runtime's spin route and settled by the workflow.
 */
export const WALLET_SECRET = 'wsec_staff_test_secret_0123456789ab';
export const PORTAL_SECRET = 'portal-secret-for-the-staff-tests-0123456789';
export const OP_A = 'op_staff_a';
export const OP_B = 'op_staff_b';
export const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const FAST = { initialRetryMs: 50, maxRetryMs: 200, debitAttemptsBeforeRollback: 3 };

export interface StaffAccountLogin {
  username: string;
  password: string;
}

export interface World {
  h: Harness;
  walletBase: string;
  admin: WalletAdminClient;
  keyA: string;
  keyB: string;
  client: Client;
  taskQueue: string;
  staff: { provider: StaffAccountLogin; adminA: StaffAccountLogin; viewerA: StaffAccountLogin };
  /** Launches a player of op_staff_a (a fresh wallet account) and returns the runtime token. */
  player(currency: string, balanceMinor: number): Promise<{ ext: string; token: string; sessionId: string }>;
  spin(token: string, betMinor: number): Promise<{ round_id: string; status: string }>;
  /** A Mines round played through the native runtime: bet, two safe reveals, cash-out. */
  minesRound(): Promise<{ roundId: string; ext: string }>;
  /**
   * A prov_b round whose debit the wallet keeps failing: turns on the sandbox's 500s (clear them
   * with `admin.setFaults({})`) and waits for the stuck flag.
   */
  stuckRound(sessionId: string, ext: string, currency: string): Promise<string>;
  until(what: string, check: () => Promise<boolean>, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function createStaffAccount(
  base: string,
  body: Record<string, unknown>,
): Promise<StaffAccountLogin> {
  const res = await call(base, 'POST', '/api/admin/v1/staff', { key: ADMIN_KEY, sign: true, body });
  if (res.status !== 201) throw new Error(`create staff: ${res.status} ${res.text}`);
  return { username: res.json.data.username, password: (body.password as string) ?? res.json.data.password };
}

export async function startWorld(extraEnv: Record<string, string> = {}): Promise<World> {
  const w = await startPlayWorld({
    queue: 'staff',
    env: { STAFF_PORTAL_SECRET: PORTAL_SECRET, ...extraEnv },
    walletSecret: WALLET_SECRET,
    // Mines plays with the operator's wallet (its per-title flag on); Hi-Lo stays without it (blocked).
    operatorWalletTitles: ['cnmines'],
    operators: [
      {
        id: OP_A,
        titles: [slot.symbol, 'cnmines', 'cnhilo'],
        settings: { name: 'Staff Casino A', allowed_currencies: ['EUR', 'USD'] },
      },
    ],
    worker: { settlement: { walletTimeoutMs: 2_000, stuckAfterAttempts: 2 } },
    client: true,
  });
  const { h, walletBase, admin, taskQueue } = w;
  const client = w.client!;
  const keyA = w.key;
  // Operator B's configured secret is not the one its wallet holds.
  await admin.setSecret(OP_B, WALLET_SECRET);
  const keyB = (
    await w.addOperator({
      id: OP_B,
      wallet: 'unregistered',
      walletSecret: 'wsec_this_is_not_the_wallets_secret_0',
      settings: { name: 'Staff Casino B' },
      titles: [slot.symbol],
    })
  ).key;

  const staff = {
    provider: await createStaffAccount(h.base, {
      username: 'prov.admin',
      display_name: 'Provider Admin',
      provider_role: 'admin',
      password: 'provider-password-1234',
    }),
    adminA: await createStaffAccount(h.base, {
      username: 'alice',
      display_name: 'Alice Admin',
      roles: [{ operator_id: OP_A, role: 'admin' }],
    }),
    viewerA: await createStaffAccount(h.base, {
      username: 'victor',
      display_name: 'Victor Viewer',
      password: 'viewer-password-1234',
      roles: [{ operator_id: OP_A, role: 'viewer' }],
    }),
  };

  const until = async (what: string, check: () => Promise<boolean>, ms = 30_000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what}`);
  };

  return {
    h,
    walletBase,
    admin,
    keyA,
    keyB,
    client,
    taskQueue,
    staff,
    until,
    async player(currency, balanceMinor) {
      const ext = `stf-${randomUUID().slice(0, 12)}`;
      await admin.createPlayer({ operatorId: OP_A, playerId: ext, currency, balanceMinor });
      const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
        key: keyA,
        body: { symbol: slot.symbol, external_player_id: ext, currency },
      });
      assert.equal(res.status, 200, res.text);
      return {
        ext,
        token: new URL(res.json.launch_url).searchParams.get('mgckey')!,
        sessionId: res.json.session_id,
      };
    },
    async spin(token, betMinor) {
      const res = await call(h.game, 'POST', '/api/runtime/spin', {
        headers: { 'x-session-token': token },
        body: { bet_minor: betMinor },
      });
      assert.equal(res.status, 200, res.text);
      return res.json;
    },
    async minesRound() {
      const ext = `stf-m-${randomUUID().slice(0, 10)}`;
      await admin.createPlayer({ operatorId: OP_A, playerId: ext, currency: 'EUR', balanceMinor: 100_000 });
      const launched = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
        key: keyA,
        body: { symbol: 'cnmines', external_player_id: ext, currency: 'EUR' },
      });
      assert.equal(launched.status, 200, launched.text);
      const grant = new URL(launched.json.launch_url).searchParams.get('grant')!;
      const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', { body: { grant } });
      assert.equal(ex.status, 200, ex.text);
      const runtime = (path: string, body: unknown) =>
        call(h.game, 'POST', path, { headers: { 'x-session-token': ex.json.token }, body });
      const bet = await runtime('/api/runtime/native/bet', { stake_minor: 1000, mines: 3 });
      assert.equal(bet.status, 200, bet.text);
      const roundId = bet.json.round.round_id as string;
      const { rows } = await h.db.pool.query(`SELECT outcome FROM rounds WHERE round_id = $1`, [roundId]);
      const mines = rows[0].outcome.mines as number[];
      const safe = Array.from({ length: 25 }, (_, i) => i).filter((i) => !mines.includes(i));
      for (const cell of safe.slice(0, 2)) {
        const r = await runtime('/api/runtime/native/action', { round_id: roundId, action: 'reveal', cell });
        assert.equal(r.status, 200, r.text);
      }
      const done = await runtime('/api/runtime/native/action', { round_id: roundId, action: 'cashout' });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.json.round.status, 'completed', done.text);
      return { roundId, ext };
    },
    async stuckRound(sessionId, ext, currency) {
      await admin.setFaults({ error5xxRate: 1 });
      const { rows } = await h.db.pool.query<{ player_id: string }>(
        'SELECT player_id FROM sessions WHERE session_id = $1',
        [sessionId],
      );
      const roundId = `r_${randomUUID()}`;
      const intent: RoundIntent = {
        roundId,
        operatorId: OP_A,
        sessionId,
        playerId: ext,
        gameSymbol: slot.symbol,
        providerId: 'prov_b',
        currency,
        actionType: 'spin',
        stakeMinor: '100',
        winMinor: '300',
        transactions: transactionIdsFor(roundId),
      };
      await recordRound(h.db.pool, { intent, playerPk: rows[0]!.player_id });
      await startSettlement(client, taskQueue, intent, FAST);
      await until('the stuck flag', async () => {
        const r = await h.db.pool.query('SELECT stuck FROM rounds WHERE round_id = $1', [roundId]);
        return r.rows[0]?.stuck === true;
      });
      return roundId;
    },
    close: () => w.close(),
  };
}

/** Logs in through the staff API; returns the session token. */
export async function login(base: string, who: StaffAccountLogin, headers: Record<string, string> = {}) {
  const res = await call(base, 'POST', '/api/staff/v1/login', {
    body: { username: who.username, password: who.password },
    headers,
  });
  assert.equal(res.status, 200, res.text);
  return res.json.data.token as string;
}

/** A staff API call with a session token. */
export function staffCall(base: string, token: string, method: string, path: string, body?: unknown) {
  return call(base, method, `/api/staff/v1${path}`, {
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body }),
  });
}
