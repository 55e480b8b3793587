import { randomBytes, randomUUID } from 'node:crypto';
import {
  CONTRACT_VERSION,
  PLAYER_PROTECTION_CODES,
  type WalletCheckResult,
  type WalletCheckStatus,
} from '@opi/contract';
import type { Pool, SecretBox } from '@opi/db';
import { decimalStringToMinor, minorToDecimalString } from '@opi/money';
import { HttpError } from '@opi/service-kit/http/errors';
import {
  buildCallbackBody,
  buildPromoCallbackBody,
  callbackRequestId,
  type MoneyOperation,
  type RoundIntent,
  sendWalletCallback,
  transactionIdsFor,
  type WalletNetworkPolicy,
  type WalletOutcome,
  walletUrlRefusal,
} from '@opi/wallet';
import type { OperatorRow } from '../auth/operator-scope.js';

/*
 * The go-live wallet checks (spec, "Go-live checks": callback signature verification; balance,
 * debit, credit, cancel and rollback; duplicate transaction_id idempotency; insufficient funds
 * failing closed; and, when the operator names a protection test player, a player-protection
 * refusal), run from the API against the operator's configured wallet with the operator's
 * own secret; then (issue 25) a promotional `promo_win` credit with no open round. The secret never
 * leaves the API. Test money nets to zero: every debit is credited back, cancelled or rolled back,
 * and the promotional credit is rolled back. Diagnostic rounds are not journalled as game rounds:
 * their ids start with `diag_` so the operator's wallet staff can tell them apart.
 */

const TIMEOUT_MS = 5_000;

export interface DiagnosticsRun {
  passed: boolean;
  wallet_base_url: string;
  player_id: string;
  currency: string;
  amount_minor: string;
  checks: WalletCheckResult[];
}

interface Ctx {
  network: WalletNetworkPolicy;
  baseUrl: string;
  secret: string;
  operator: OperatorRow;
  playerId: string;
  currency: string;
  gameSymbol: string;
  sessionId: string;
}

function describe(o: WalletOutcome): string {
  switch (o.kind) {
    case 'success':
      return `HTTP ${o.httpStatus}, success, balance ${o.balance}`;
    case 'rejected':
      return `HTTP ${o.httpStatus}, rejected with ${o.error}${o.message ? ` (${o.message})` : ''}`;
    case 'config_fault':
      if (o.httpStatus === undefined) return `not called: ${o.message ?? o.error}`;
      return `HTTP ${o.httpStatus}: the wallet refused our signature (${o.error}) — the wallet secret configured for this operator does not match the wallet's`;
    default:
      return `no definite answer: ${o.reason}`;
  }
}

const statusOf = (o: WalletOutcome) => ('httpStatus' in o ? (o.httpStatus ?? null) : null);

function intentFor(c: Ctx): RoundIntent {
  const roundId = `diag_${randomUUID()}`;
  return {
    roundId,
    operatorId: c.operator.operator_id,
    sessionId: c.sessionId,
    playerId: c.playerId,
    gameSymbol: c.gameSymbol,
    providerId: 'prov_a',
    currency: c.currency,
    actionType: 'diagnostics',
    stakeMinor: '0',
    winMinor: '0',
    transactions: transactionIdsFor(roundId),
  };
}

function balanceBody(c: Ctx): { body: string; requestId: string } {
  const requestId = randomUUID();
  return {
    requestId,
    body: JSON.stringify({
      contract_version: CONTRACT_VERSION,
      operator_id: c.operator.operator_id,
      player_id: c.playerId,
      session_id: c.sessionId,
      game_symbol: c.gameSymbol,
      currency: c.currency,
      request_id: requestId,
      transaction_id: `diag_balance:${requestId}`,
      round_id: `diag_balance:${c.sessionId}`,
      transaction_type: 'balance',
      action_type: 'balance',
      amount: 0,
      amount_minor: 0,
    }),
  };
}

function send(c: Ctx, operation: MoneyOperation | 'balance', body: string, secret = c.secret) {
  const requestId = (JSON.parse(body) as { request_id: string }).request_id;
  return sendWalletCallback({
    baseUrl: c.baseUrl,
    operation,
    secret,
    body,
    requestId,
    timeoutMs: TIMEOUT_MS,
    network: c.network,
  });
}

const money = (intent: RoundIntent, op: MoneyOperation, minor: bigint) =>
  buildCallbackBody(intent, op, minor.toString());

/** The balance in minor units from a success answer, or null when it is not a decimal of this currency. */
function minorOf(o: WalletOutcome, currency: string): bigint | null {
  if (o.kind !== 'success') return null;
  try {
    return decimalStringToMinor(o.balance, currency);
  } catch {
    return null;
  }
}

/** Runs every check in order; a check that depends on an earlier failure says so. */
export async function runWalletDiagnostics(
  pool: Pool,
  box: SecretBox,
  operator: OperatorRow,
  input: {
    playerId: string;
    currency: string;
    /** Where the wallet may be (address-policy.ts); absent: anywhere but link-local and metadata. */
    network?: WalletNetworkPolicy & { requireHttps: boolean };
  },
): Promise<DiagnosticsRun> {
  if (!operator.wallet_base_url || !operator.wallet_secret_enc) {
    throw new HttpError(409, 'The operator wallet is not configured (URL and secret)');
  }
  // Issue 23 point 5: a wallet URL naming (or resolving to) an address the policy refuses is
  // never probed. Every connection is checked again (a check whose call was refused says so).
  const network = input.network ?? { allowPrivate: true, requireHttps: false };
  const refusal = await walletUrlRefusal(operator.wallet_base_url, network);
  if (refusal) throw new HttpError(409, `The operator wallet URL is refused, nothing was sent: ${refusal}`);
  if (!operator.allowed_currencies.includes(input.currency)) {
    throw new HttpError(422, [
      {
        loc: ['body', 'currency'],
        msg: `not one of the operator's currencies (${operator.allowed_currencies.join(', ')})`,
        type: 'value_error',
      },
    ]);
  }
  const { rows } = await pool.query<{ symbol: string }>(
    `SELECT symbol FROM operator_games WHERE operator_id = $1 ORDER BY symbol LIMIT 1`,
    [operator.operator_id],
  );
  const c: Ctx = {
    network: { allowPrivate: network.allowPrivate },
    baseUrl: operator.wallet_base_url,
    secret: box.decrypt(operator.wallet_secret_enc),
    operator,
    playerId: input.playerId,
    currency: input.currency,
    gameSymbol: rows[0]?.symbol ?? 'diagnostics',
    sessionId: `diag_session_${randomBytes(6).toString('hex')}`,
  };
  const amount = operator.bet_min_minor;
  const checks: WalletCheckResult[] = [];
  const check = async (
    id: string,
    name: string,
    expected: string,
    run: () => Promise<{
      passed: boolean;
      detail: string;
      http_status: number | null;
      status?: WalletCheckStatus;
    }>,
  ) => {
    const t = performance.now();
    let r: { passed: boolean; detail: string; http_status: number | null; status?: WalletCheckStatus };
    try {
      r = await run();
    } catch (err) {
      r = { passed: false, detail: `check failed: ${(err as Error).message}`, http_status: null };
    }
    const status: WalletCheckStatus = r.status ?? (r.passed ? 'passed' : 'failed');
    checks.push({
      id,
      name,
      expected,
      passed: status === 'passed',
      status,
      detail: r.detail,
      http_status: r.http_status,
      duration_ms: Math.round(performance.now() - t),
    });
    return r.passed;
  };
  const fmt = (minor: bigint) => `${minorToDecimalString(minor, c.currency)} ${c.currency}`;
  const readBalance = async () => {
    const b = balanceBody(c);
    return send(c, 'balance', b.body);
  };

  // 1. A request signed with the wrong secret must be refused with 401.
  await check('signature', 'Bad signature refused', 'HTTP 401 invalid_signature', async () => {
    const b = balanceBody(c);
    const o = await send(c, 'balance', b.body, `wsec_wrong_${randomBytes(16).toString('hex')}`);
    const http = statusOf(o);
    if (http === 401)
      return { passed: true, detail: 'HTTP 401: the wallet refused a bad signature', http_status: 401 };
    return {
      passed: false,
      detail: `expected HTTP 401, got ${describe(o)}: the wallet accepts requests it cannot authenticate`,
      http_status: http,
    };
  });

  // 2. Balance.
  let start: bigint | null = null;
  await check('balance', 'Balance', 'HTTP 200, success, a decimal-string balance', async () => {
    const o = await readBalance();
    start = minorOf(o, c.currency);
    if (o.kind === 'success' && start !== null)
      return { passed: true, detail: `balance ${fmt(start)}`, http_status: statusOf(o) };
    return { passed: false, detail: describe(o), http_status: statusOf(o) };
  });

  const needBalance = (): { passed: false; detail: string; http_status: null } | null =>
    start === null
      ? { passed: false, detail: 'not run: the balance check failed', http_status: null }
      : start < amount
        ? {
            passed: false,
            detail: `not run: the test player needs at least ${fmt(amount)} (has ${fmt(start)})`,
            http_status: null,
          }
        : null;

  // 3. Debit, 4. the same debit again (idempotent), 5. credit back.
  const r1 = intentFor(c);
  const debitBody = money(r1, 'debit', amount);
  let firstDebit: WalletOutcome | undefined;
  await check('debit', 'Debit', `HTTP 200, balance lowered by ${fmt(amount)}`, async () => {
    const skip = needBalance();
    if (skip) return skip;
    firstDebit = await send(c, 'debit', debitBody);
    const after = minorOf(firstDebit, c.currency);
    if (after === null)
      return { passed: false, detail: describe(firstDebit), http_status: statusOf(firstDebit) };
    const ok = after === start! - amount;
    return {
      passed: ok,
      detail: ok
        ? `balance ${fmt(start!)} → ${fmt(after)}`
        : `balance ${fmt(start!)} → ${fmt(after)}: expected ${fmt(start! - amount)}`,
      http_status: statusOf(firstDebit),
    };
  });
  await check(
    'duplicate',
    'Duplicate transaction_id',
    'the repeated debit returns the original result; no second debit',
    async () => {
      if (firstDebit?.kind !== 'success')
        return { passed: false, detail: 'not run: the debit check failed', http_status: null };
      const again = await send(c, 'debit', debitBody);
      if (again.kind !== 'success')
        return { passed: false, detail: describe(again), http_status: statusOf(again) };
      const now = minorOf(await readBalance(), c.currency);
      const same = again.balance === firstDebit.balance;
      const once = now === start! - amount;
      return {
        passed: same && once,
        detail: !same
          ? `the repeat answered balance ${again.balance}, the original ${firstDebit.balance}`
          : !once
            ? `the balance is ${now === null ? 'unreadable' : fmt(now)}: the debit was applied twice`
            : `the original result (balance ${again.balance}) came back; the money moved once`,
        http_status: statusOf(again),
      };
    },
  );
  await check('credit', 'Credit', `HTTP 200, balance raised by ${fmt(amount)}`, async () => {
    if (firstDebit?.kind !== 'success')
      return { passed: false, detail: 'not run: the debit check failed', http_status: null };
    const o = await send(c, 'credit', money(r1, 'credit', amount));
    const after = minorOf(o, c.currency);
    if (after === null) return { passed: false, detail: describe(o), http_status: statusOf(o) };
    return {
      passed: after === start!,
      detail:
        after === start! ? `balance back to ${fmt(after)}` : `balance ${fmt(after)}: expected ${fmt(start!)}`,
      http_status: statusOf(o),
    };
  });

  // 6. Cancel: a debit, then the round's cancel gives the wager back.
  await check('cancel', 'Cancel', 'HTTP 200, the cancelled wager returned', async () => {
    const skip = needBalance();
    if (skip) return skip;
    const r = intentFor(c);
    const d = await send(c, 'debit', money(r, 'debit', amount));
    if (d.kind !== 'success')
      return {
        passed: false,
        detail: `the debit before the cancel: ${describe(d)}`,
        http_status: statusOf(d),
      };
    const o = await send(c, 'cancel', money(r, 'cancel', amount));
    const after = minorOf(o, c.currency);
    if (after === null) return { passed: false, detail: describe(o), http_status: statusOf(o) };
    return {
      passed: after === start!,
      detail:
        after === start!
          ? `wager returned, balance ${fmt(after)}`
          : `balance ${fmt(after)}: expected ${fmt(start!)}`,
      http_status: statusOf(o),
    };
  });

  // 7. Rollback: a debit, then a rollback carrying original_transaction_id.
  await check('rollback', 'Rollback', 'HTTP 200, the debit reversed', async () => {
    const skip = needBalance();
    if (skip) return skip;
    const r = intentFor(c);
    const d = await send(c, 'debit', money(r, 'debit', amount));
    if (d.kind !== 'success')
      return {
        passed: false,
        detail: `the debit before the rollback: ${describe(d)}`,
        http_status: statusOf(d),
      };
    const o = await send(c, 'rollback', money(r, 'rollback', amount));
    const after = minorOf(o, c.currency);
    if (after === null) return { passed: false, detail: describe(o), http_status: statusOf(o) };
    return {
      passed: after === start!,
      detail:
        after === start!
          ? `debit reversed, balance ${fmt(after)}`
          : `balance ${fmt(after)}: expected ${fmt(start!)}`,
      http_status: statusOf(o),
    };
  });

  // 8. Insufficient funds: a debit of more than the balance is refused (HTTP 400).
  await check('insufficient_funds', 'Insufficient funds', 'HTTP 400 insufficient_funds', async () => {
    if (start === null)
      return { passed: false, detail: 'not run: the balance check failed', http_status: null };
    const r = intentFor(c);
    const tooMuch = start + 1n;
    const o = await send(c, 'debit', money(r, 'debit', tooMuch));
    if (o.kind === 'rejected' && o.error === 'insufficient_funds')
      return {
        passed: true,
        detail: `a debit of ${fmt(tooMuch)} was refused: insufficient_funds`,
        http_status: statusOf(o),
      };
    if (o.kind === 'success') {
      // Leave nothing behind: reverse the debit the wallet should have refused.
      await send(c, 'rollback', money(r, 'rollback', tooMuch));
      return {
        passed: false,
        detail: `a debit of ${fmt(tooMuch)} over a balance of ${fmt(start)} was accepted (rolled back again)`,
        http_status: statusOf(o),
      };
    }
    return {
      passed: false,
      detail: `expected insufficient_funds, got ${describe(o)}`,
      http_status: statusOf(o),
    };
  });

  // 9. Protection refusal (optional): the operator's protection test player, a known self-excluded
  // or blocked test account, must be refused with a player-protection code.
  const protectionPlayer = operator.diagnostics_protection_player_id;
  await check(
    'protection_refusal',
    'Protection refusal',
    `HTTP 400 with a player-protection code (${PLAYER_PROTECTION_CODES.join(', ')}) for the protection test player`,
    async () => {
      if (!protectionPlayer)
        return {
          passed: false,
          status: 'not_configured',
          detail:
            "not configured: name a test player your wallet always refuses (a self-excluded or blocked test account) as the operator's diagnostics_protection_player_id (PATCH /api/admin/v1/operators/{operator_id}); this check then debits it and expects a player-protection refusal",
          http_status: null,
        };
      const p: Ctx = { ...c, playerId: protectionPlayer };
      const r = intentFor(p);
      const o = await send(p, 'debit', money(r, 'debit', amount));
      const who = `a debit of ${fmt(amount)} for ${protectionPlayer}`;
      if (o.kind === 'rejected' && (PLAYER_PROTECTION_CODES as readonly string[]).includes(o.error))
        return { passed: true, detail: `${who} was refused: ${o.error}`, http_status: statusOf(o) };
      if (o.kind === 'success') {
        // Leave nothing behind: reverse the debit the wallet should have refused.
        const back = await send(p, 'rollback', money(r, 'rollback', amount));
        return {
          passed: false,
          detail: `${who} was accepted: the wallet does not refuse its protection test player (${back.kind === 'success' ? 'rolled back again' : `the rollback answered ${describe(back)}`})`,
          http_status: statusOf(o),
        };
      }
      if (o.kind === 'rejected')
        return {
          passed: false,
          detail: `${who} was refused with ${o.error}, not a player-protection code (${PLAYER_PROTECTION_CODES.join(', ')})`,
          http_status: statusOf(o),
        };
      return {
        passed: false,
        detail: `expected a protection refusal, got ${describe(o)}`,
        http_status: statusOf(o),
      };
    },
  );

  // 10. A promotional credit (issue 25): `action_type: promo_win` with no open round and no debit,
  // as a tournament prize or prize drop is paid (its round_id a payout id, the player's session
  // possibly long over); its repeat must answer the same and credit once. Then rolled back. Last,
  // so that a wallet which keeps it (a refused rollback) cannot change an earlier check.
  await check(
    'promo_win',
    'Promotional credit (promo_win)',
    `HTTP 200, balance raised by ${fmt(amount)} for a promo_win credit with no open round and no debit; its repeat answers the same and credits once`,
    async () => {
      if (start === null)
        return { passed: false, detail: 'not run: the balance check failed', http_status: null };
      const before = minorOf(await readBalance(), c.currency);
      if (before === null)
        return { passed: false, detail: 'not run: the balance could not be read again', http_status: null };
      const payoutId = `diag_pp_${randomBytes(12).toString('hex')}`;
      const body = buildPromoCallbackBody({
        payout_id: payoutId,
        promo_type: 'tournament',
        promo_id: 'diag_promo',
        operator_id: c.operator.operator_id,
        external_player_id: c.playerId,
        currency: c.currency,
        amount_minor: amount.toString(),
        rank: 1,
        session_id: c.sessionId,
        game_symbol: c.gameSymbol,
        status: 'pending',
      });
      const what = `a promo_win credit of ${fmt(amount)} in round ${payoutId} (no debit, no open round)`;
      // Leave nothing behind: the credit is rolled back whatever the outcome (after no definite
      // answer too: a rollback of a credit the wallet never took changes nothing).
      const reverse = async () => {
        const txId = `${payoutId}:rollback`;
        const back = await send(
          c,
          'rollback',
          JSON.stringify({
            ...(JSON.parse(body) as Record<string, unknown>),
            promo_type: undefined,
            promo_id: undefined,
            rank: undefined,
            request_id: callbackRequestId(txId),
            transaction_id: txId,
            transaction_type: 'rollback',
            action_type: 'rollback',
            original_transaction_id: `${payoutId}:credit`,
          }),
        );
        return back.kind === 'success'
          ? 'rolled back again'
          : `its rollback answered ${describe(back)}: the test player keeps ${fmt(amount)}`;
      };
      const first = await send(c, 'credit', body);
      if (first.kind !== 'success') {
        const definite = first.kind === 'rejected' || first.kind === 'config_fault';
        return {
          passed: false,
          detail: `${what} was not accepted: ${describe(first)}. The wallet must take a credit whose round has no debit (a tournament prize or prize drop, paid after the player's session may have ended)${definite ? '' : ` (${await reverse()})`}`,
          http_status: statusOf(first),
        };
      }
      const after = minorOf(first, c.currency);
      if (after !== before + amount) {
        const undo = await reverse();
        return {
          passed: false,
          detail: `${what}: balance ${fmt(before)} → ${after === null ? first.balance : fmt(after)}, expected ${fmt(before + amount)} (${undo})`,
          http_status: statusOf(first),
        };
      }
      const again = await send(c, 'credit', body);
      const now = minorOf(await readBalance(), c.currency);
      const undo = await reverse();
      if (again.kind !== 'success')
        return {
          passed: false,
          detail: `${what} was accepted, but its repeat (same transaction_id) answered ${describe(again)}, not the original result (${undo})`,
          http_status: statusOf(again),
        };
      if (again.balance !== first.balance || now !== before + amount)
        return {
          passed: false,
          detail:
            again.balance !== first.balance
              ? `the repeated promo_win credit answered balance ${again.balance}, the original ${first.balance} (${undo})`
              : `the balance is ${now === null ? 'unreadable' : fmt(now)} after the repeat: the promo_win credit was applied twice (${undo})`,
          http_status: statusOf(again),
        };
      return {
        passed: true,
        detail: `${what}: balance ${fmt(before)} → ${fmt(after)}; the repeat answered the original result, credited once (${undo})`,
        http_status: statusOf(first),
      };
    },
  );

  return {
    passed: checks.every((x) => x.status !== 'failed'),
    wallet_base_url: c.baseUrl,
    player_id: c.playerId,
    currency: c.currency,
    amount_minor: amount.toString(),
    checks,
  };
}
