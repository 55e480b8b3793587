import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { type Pool, withTransaction } from '@opi/db';
import { minorToDecimalString } from '@opi/money';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { describeIssues } from './callback.js';
import type { FaultInjector } from './faults.js';
import { readRawBody, sendJsonText, stringifyJson, WalletHttpError } from './http.js';
import { createPlayerAccount, lockNames, lockPlayer, postEntries, readBalance } from './ledger.js';

export const ADMIN_TOKEN_HEADER = 'x-sandbox-admin-token';

export interface AdminRouteDeps {
  pool: Pool;
  faults: FaultInjector;
  /** Unset: the admin API answers 401 to everything. */
  adminToken: string | undefined;
}

const minorString = z.union([
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  z.string().regex(/^(?:0|[1-9][0-9]{0,17})$/, 'a non-negative integer (minor units)'),
]);
const operatorId = z.string().min(1).max(128);
const playerId = z
  .string()
  .min(1)
  .max(64)
  .refine((v) => v.trim() === v, 'no surrounding whitespace');
const currency = z.string().regex(/^[A-Z]{3}$/, 'a three-letter upper-case currency code');

const SecretBody = z.object({ secret: z.string().min(16, 'at least 16 characters').max(512) });
const PlayerBody = z.object({
  operator_id: operatorId,
  player_id: playerId,
  currency,
  balance_minor: minorString.optional(),
});
const DepositBody = z.object({
  operator_id: operatorId,
  player_id: playerId,
  currency,
  amount_minor: minorString.refine((v) => BigInt(v) > 0n, 'greater than zero'),
  reference: z.string().min(1).max(128),
});

const ProtectionBody = z.object({
  operator_id: operatorId,
  player_id: playerId,
  /** The code the player's debits are refused with (HTTP 400 `error`); null clears the setting. */
  refuse_debits_with: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/, 'a lower-case code: a letter, then letters, digits or _ (64 at most)')
    .nullable(),
  /** Refuse only this many debits, then accept again; omitted or null: every debit until cleared. */
  times: z.number().int().min(1).max(1_000_000).nullable().optional(),
});

export interface PlayerProtection {
  operator_id: string;
  player_id: string;
  /** The code debits are refused with, or null: debits are decided as usual. */
  refuse_debits_with: string | null;
  /** Debits still to refuse; null: every debit (or no setting). */
  remaining: number | null;
}

async function readProtection(pool: Pool, op: string, player: string): Promise<PlayerProtection> {
  const { rows } = await pool.query<{ refuse_debits_with: string; remaining: number | null }>(
    'SELECT refuse_debits_with, remaining FROM wallet.player_protection WHERE operator_id = $1 AND player_id = $2',
    [op, player],
  );
  return {
    operator_id: op,
    player_id: player,
    refuse_debits_with: rows[0]?.refuse_debits_with ?? null,
    remaining: rows[0]?.remaining ?? null,
  };
}

function tokenMatches(expected: string | undefined, presented: string): boolean {
  if (!expected || !presented) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}

async function jsonBody(ctx: Context): Promise<unknown> {
  const raw = await readRawBody(ctx);
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WalletHttpError(400, 'invalid_request', 'malformed JSON body');
  }
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new WalletHttpError(400, 'invalid_request', describeIssues(result.error.issues));
  return result.data;
}

function send(ctx: Context, status: number, body: unknown): void {
  sendJsonText(ctx, status, stringifyJson(body));
}

function presentBalance(operator: string, player: string, cur: string, balance: bigint) {
  return {
    operator_id: operator,
    player_id: player,
    currency: cur,
    balance_minor: balance.toString(),
    balance: minorToDecimalString(balance, cur),
  };
}

export interface LedgerCheckRow {
  operator_id: string;
  player_id: string;
  currency: string;
  balance_minor: string;
  ledger_sum_minor: string;
  opening_minor: string;
  deposits_minor: string;
  debits_minor: string;
  credits_minor: string;
  reversals_minor: string;
  expected_minor: string;
  consistent: boolean;
}

export interface LedgerCheck {
  ok: boolean;
  accounts: LedgerCheckRow[];
  /** Ledger transactions whose entries do not sum to zero (always 0 unless the ledger is corrupt). */
  unbalanced_transactions: number;
  /** Sum of every entry of every account, per currency: zero for a closed double-entry ledger. */
  totals: Array<{ currency: string; sum_minor: string }>;
}

/** Per player account: balance column, ledger sum, and the movements that explain it. */
export async function ledgerCheck(pool: Pool): Promise<LedgerCheck> {
  const { rows } = await pool.query<{
    operator_id: string;
    player_id: string;
    currency: string;
    balance_minor: bigint;
    ledger_sum_minor: bigint;
    opening_minor: bigint;
    deposits_minor: bigint;
    debits_minor: bigint;
    credits_minor: bigint;
    reversals_minor: bigint;
    net_minor: bigint;
  }>(
    `SELECT a.operator_id, a.player_id, a.currency, a.balance_minor, a.opening_minor,
            coalesce((SELECT sum(e.amount_minor) FROM wallet.ledger_entries e WHERE e.account_id = a.account_id), 0)::bigint
              AS ledger_sum_minor,
            coalesce((SELECT sum(d.amount_minor) FROM wallet.deposits d
                      WHERE d.operator_id = a.operator_id AND d.player_id = a.player_id AND d.currency = a.currency), 0)::bigint
              AS deposits_minor,
            coalesce(t.debits, 0)::bigint AS debits_minor,
            coalesce(t.credits, 0)::bigint AS credits_minor,
            coalesce(t.reversals, 0)::bigint AS reversals_minor,
            coalesce(t.net, 0)::bigint AS net_minor
     FROM wallet.accounts a
     LEFT JOIN LATERAL (
       SELECT sum(amount_minor) FILTER (WHERE transaction_type = 'debit') AS debits,
              sum(amount_minor) FILTER (WHERE transaction_type = 'credit') AS credits,
              sum(player_delta_minor) FILTER (WHERE transaction_type IN ('rollback', 'cancel')) AS reversals,
              sum(player_delta_minor) AS net
       FROM wallet.transactions x
       WHERE x.operator_id = a.operator_id AND x.player_id = a.player_id AND x.currency = a.currency AND x.status = 'success'
     ) t ON true
     WHERE a.kind = 'player'
     ORDER BY a.operator_id, a.player_id, a.currency`,
  );
  const unbalanced = await pool.query<{ n: bigint }>(
    `SELECT count(*)::bigint AS n FROM (
       SELECT 1 FROM wallet.ledger_entries GROUP BY operator_id, transaction_ref
       HAVING sum(amount_minor) <> 0 OR count(DISTINCT currency) > 1) u`,
  );
  const totals = await pool.query<{ currency: string; sum_minor: bigint }>(
    `SELECT currency, sum(amount_minor)::bigint AS sum_minor FROM wallet.ledger_entries GROUP BY currency ORDER BY currency`,
  );
  const accounts = rows.map((r) => {
    const expected = r.opening_minor + r.deposits_minor + r.net_minor;
    return {
      operator_id: r.operator_id,
      player_id: r.player_id,
      currency: r.currency,
      balance_minor: r.balance_minor.toString(),
      ledger_sum_minor: r.ledger_sum_minor.toString(),
      opening_minor: r.opening_minor.toString(),
      deposits_minor: r.deposits_minor.toString(),
      debits_minor: r.debits_minor.toString(),
      credits_minor: r.credits_minor.toString(),
      reversals_minor: r.reversals_minor.toString(),
      expected_minor: expected.toString(),
      consistent:
        r.balance_minor === r.ledger_sum_minor && r.ledger_sum_minor === expected && r.balance_minor >= 0n,
    };
  });
  const unbalancedCount = Number(unbalanced.rows[0]?.n ?? 0n);
  return {
    ok:
      unbalancedCount === 0 &&
      accounts.every((a) => a.consistent) &&
      totals.rows.every((t) => t.sum_minor === 0n),
    accounts,
    unbalanced_transactions: unbalancedCount,
    totals: totals.rows.map((t) => ({ currency: t.currency, sum_minor: t.sum_minor.toString() })),
  };
}

/** The staff API under /admin, guarded by the x-sandbox-admin-token header. */
export function adminRoutes(deps: AdminRouteDeps): Router {
  const router = new Router({ prefix: '/admin' });
  router.use(async (ctx: Context, next: Next) => {
    if (!tokenMatches(deps.adminToken, ctx.get(ADMIN_TOKEN_HEADER))) {
      throw new WalletHttpError(
        401,
        'unauthorized',
        deps.adminToken
          ? `missing or wrong ${ADMIN_TOKEN_HEADER}`
          : 'the admin API is disabled (WALLET_ADMIN_TOKEN unset)',
      );
    }
    await next();
  });

  router.put('/operators/:operator_id/secret', async (ctx) => {
    const op = parse(operatorId, ctx.params.operator_id);
    const { secret } = parse(SecretBody, await jsonBody(ctx));
    await deps.pool.query(
      `INSERT INTO wallet.operator_secrets (operator_id, secret) VALUES ($1, $2)
       ON CONFLICT (operator_id) DO UPDATE SET secret = EXCLUDED.secret, updated_at = now()`,
      [op, secret],
    );
    send(ctx, 200, { operator_id: op, secret_configured: true });
  });

  router.post('/players', async (ctx) => {
    const body = parse(PlayerBody, await jsonBody(ctx));
    const opening = BigInt(body.balance_minor ?? 0);
    const key = { operatorId: body.operator_id, playerId: body.player_id, currency: body.currency };
    const result = await withTransaction(deps.pool, async (client) => {
      const { created } = await createPlayerAccount(client, key, opening);
      const balance = (await readBalance(client, key))!;
      return { created, balance };
    });
    send(ctx, result.created ? 201 : 200, {
      created: result.created,
      ...presentBalance(body.operator_id, body.player_id, body.currency, result.balance),
    });
  });

  router.get('/players/:operator_id/:player_id/:currency', async (ctx) => {
    const op = parse(operatorId, ctx.params.operator_id);
    const player = parse(playerId, ctx.params.player_id);
    const cur = parse(currency, ctx.params.currency);
    const client = await deps.pool.connect();
    let balance: bigint | undefined;
    try {
      balance = await readBalance(client, { operatorId: op, playerId: player, currency: cur });
    } finally {
      client.release();
    }
    if (balance === undefined) throw new WalletHttpError(404, 'unknown_player', 'unknown player');
    send(ctx, 200, presentBalance(op, player, cur, balance));
  });

  router.post('/deposit', async (ctx) => {
    const body = parse(DepositBody, await jsonBody(ctx));
    const amount = BigInt(body.amount_minor);
    const key = { operatorId: body.operator_id, playerId: body.player_id, currency: body.currency };
    const result = await withTransaction(deps.pool, async (client) => {
      await lockNames(client, [JSON.stringify(['deposit', body.operator_id, body.reference])]);
      const existing = await client.query<{ player_id: string; currency: string; amount_minor: bigint }>(
        'SELECT player_id, currency, amount_minor FROM wallet.deposits WHERE operator_id = $1 AND reference = $2',
        [body.operator_id, body.reference],
      );
      const prior = existing.rows[0];
      if (prior) {
        if (
          prior.player_id !== body.player_id ||
          prior.currency !== body.currency ||
          prior.amount_minor !== amount
        ) {
          throw new WalletHttpError(
            409,
            'deposit_conflict',
            `reference ${body.reference} was already used for a different deposit`,
          );
        }
        return { replayed: true, balance: (await readBalance(client, key))! };
      }
      const account = await lockPlayer(client, key);
      if (!account) throw new WalletHttpError(404, 'unknown_player', 'unknown player');
      await client.query(
        `INSERT INTO wallet.deposits (operator_id, reference, player_id, currency, amount_minor) VALUES ($1, $2, $3, $4, $5)`,
        [body.operator_id, body.reference, body.player_id, body.currency, amount.toString()],
      );
      await postEntries(client, body.operator_id, `dep:${body.reference}`, body.currency, [
        { accountId: account.accountId, amountMinor: amount },
        { accountId: account.cashAccountId, amountMinor: -amount },
      ]);
      return { replayed: false, balance: account.balanceMinor + amount };
    });
    send(ctx, 200, {
      reference: body.reference,
      replayed: result.replayed,
      ...presentBalance(body.operator_id, body.player_id, body.currency, result.balance),
    });
  });

  // Player protection: refuse the player's debits (every currency) with a code, as an operator
  // wallet does for a self-excluded or blocked player, or one over a limit.
  router.put('/protection', async (ctx) => {
    const body = parse(ProtectionBody, await jsonBody(ctx));
    if (body.refuse_debits_with === null) {
      await deps.pool.query(
        'DELETE FROM wallet.player_protection WHERE operator_id = $1 AND player_id = $2',
        [body.operator_id, body.player_id],
      );
    } else {
      await deps.pool.query(
        `INSERT INTO wallet.player_protection (operator_id, player_id, refuse_debits_with, remaining)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (operator_id, player_id) DO UPDATE
           SET refuse_debits_with = EXCLUDED.refuse_debits_with, remaining = EXCLUDED.remaining, updated_at = now()`,
        [body.operator_id, body.player_id, body.refuse_debits_with, body.times ?? null],
      );
    }
    send(ctx, 200, await readProtection(deps.pool, body.operator_id, body.player_id));
  });

  router.get('/protection/:operator_id/:player_id', async (ctx) => {
    const op = parse(operatorId, ctx.params.operator_id);
    const player = parse(playerId, ctx.params.player_id);
    send(ctx, 200, await readProtection(deps.pool, op, player));
  });

  router.get('/ledger-check', async (ctx) => {
    send(ctx, 200, await ledgerCheck(deps.pool));
  });

  router.get('/faults', (ctx) => {
    send(ctx, 200, { faults: deps.faults.get(), counters: deps.faults.counters });
  });

  router.put('/faults', async (ctx) => {
    const body = await jsonBody(ctx);
    try {
      deps.faults.set(body);
    } catch (err) {
      if (err instanceof z.ZodError)
        throw new WalletHttpError(400, 'invalid_request', describeIssues(err.issues));
      throw err;
    }
    send(ctx, 200, { faults: deps.faults.get(), counters: deps.faults.counters });
  });

  return router;
}
