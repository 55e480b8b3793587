import { randomBytes, randomUUID } from 'node:crypto';
import {
  CONTRACT_VERSION,
  PLAYER_PROTECTION_CODES,
  type StaffDiagnosticsRun,
  type WalletCheckResult,
  type WalletCheckStatus,
} from '@opi/contract';
import type { Pool, SecretBox } from '@opi/db';
import { decimalStringToMinor, minorToDecimalString } from '@opi/money';
import { conflict, invalidField } from '@opi/service-kit/http/named-errors';
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

/** A diagnostics run (the contract's StaffDiagnosticsRun; also the audit row's detail). */
export type DiagnosticsRun = StaffDiagnosticsRun;

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

// ---------------------------------------------------------------------------------------------
// The checks, a table: each names what it checks and what it expects, in the order they run

/** What a check found. `status` only when it is neither passed nor failed (`not_configured`). */
interface CheckOutcome {
  passed: boolean;
  detail: string;
  http_status: number | null;
  status?: WalletCheckStatus;
}

/** A run's state: the wallet, the test amount, and what the earlier checks found. */
interface Run {
  c: Ctx;
  /** The test amount (the operator's minimum bet). */
  amount: bigint;
  fmt(minor: bigint): string;
  readBalance(): Promise<WalletOutcome>;
  /** The balance the balance check read (null: it failed). */
  start: bigint | null;
  /** The debit check's round and body, which the duplicate and credit checks send again. */
  debit: { intent: RoundIntent; body: string; outcome?: WalletOutcome };
}

interface WalletCheck {
  id: string;
  name: string;
  expected(r: Run): string;
  run(r: Run): Promise<CheckOutcome>;
}

const notRun = (why: string): CheckOutcome => ({
  passed: false,
  detail: `not run: ${why}`,
  http_status: null,
});
const answer = (o: WalletOutcome, passed: boolean, detail: string): CheckOutcome => ({
  passed,
  detail,
  http_status: statusOf(o),
});

/** Checks that move money need the balance read and at least the test amount on it. */
function needBalance(r: Run): CheckOutcome | null {
  if (r.start === null) return notRun('the balance check failed');
  if (r.start < r.amount)
    return notRun(`the test player needs at least ${r.fmt(r.amount)} (has ${r.fmt(r.start)})`);
  return null;
}

/** 1. A request signed with the wrong secret must be refused with 401. */
async function badSignatureRefused({ c }: Run): Promise<CheckOutcome> {
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
}

/** 2. Balance: a decimal string of the currency (the start of every later comparison). */
async function balanceRead(r: Run): Promise<CheckOutcome> {
  const o = await r.readBalance();
  r.start = minorOf(o, r.c.currency);
  if (o.kind === 'success' && r.start !== null) return answer(o, true, `balance ${r.fmt(r.start)}`);
  return answer(o, false, describe(o));
}

/** 3. Debit: the balance lowered by the amount. */
async function debitLowers(r: Run): Promise<CheckOutcome> {
  const skip = needBalance(r);
  if (skip) return skip;
  const { fmt, amount } = r;
  const start = r.start!;
  const o = await send(r.c, 'debit', r.debit.body);
  r.debit.outcome = o;
  const after = minorOf(o, r.c.currency);
  if (after === null) return answer(o, false, describe(o));
  const ok = after === start - amount;
  return answer(
    o,
    ok,
    ok
      ? `balance ${fmt(start)} → ${fmt(after)}`
      : `balance ${fmt(start)} → ${fmt(after)}: expected ${fmt(start - amount)}`,
  );
}

/** 4. The same debit again: the original result, the money moved once. */
async function duplicateIsIdempotent(r: Run): Promise<CheckOutcome> {
  const first = r.debit.outcome;
  if (first?.kind !== 'success') return notRun('the debit check failed');
  const again = await send(r.c, 'debit', r.debit.body);
  if (again.kind !== 'success') return answer(again, false, describe(again));
  const now = minorOf(await r.readBalance(), r.c.currency);
  const same = again.balance === first.balance;
  const once = now === r.start! - r.amount;
  return answer(
    again,
    same && once,
    !same
      ? `the repeat answered balance ${again.balance}, the original ${first.balance}`
      : !once
        ? `the balance is ${now === null ? 'unreadable' : r.fmt(now)}: the debit was applied twice`
        : `the original result (balance ${again.balance}) came back; the money moved once`,
  );
}

/** 5. Credit back: the balance where it started. */
async function creditRaises(r: Run): Promise<CheckOutcome> {
  if (r.debit.outcome?.kind !== 'success') return notRun('the debit check failed');
  const o = await send(r.c, 'credit', money(r.debit.intent, 'credit', r.amount));
  return balanceBackToStart(r, o, (after) => `balance back to ${r.fmt(after)}`);
}

/** The answer to a step that should leave the balance where it started. */
function balanceBackToStart(r: Run, o: WalletOutcome, done: (after: bigint) => string): CheckOutcome {
  const after = minorOf(o, r.c.currency);
  if (after === null) return answer(o, false, describe(o));
  const start = r.start!;
  return answer(
    o,
    after === start,
    after === start ? done(after) : `balance ${r.fmt(after)}: expected ${r.fmt(start)}`,
  );
}

/**
 * 6 and 7. A debit of its own round, then the round's cancel (the wager returned) or a rollback
 * carrying original_transaction_id (the debit reversed): the balance where it started.
 */
function debitThenReversed(reversal: 'cancel' | 'rollback', done: string) {
  return async (r: Run): Promise<CheckOutcome> => {
    const skip = needBalance(r);
    if (skip) return skip;
    const intent = intentFor(r.c);
    const d = await send(r.c, 'debit', money(intent, 'debit', r.amount));
    if (d.kind !== 'success') return answer(d, false, `the debit before the ${reversal}: ${describe(d)}`);
    const o = await send(r.c, reversal, money(intent, reversal, r.amount));
    return balanceBackToStart(r, o, (after) => `${done}, balance ${r.fmt(after)}`);
  };
}

const cancelReturnsWager = debitThenReversed('cancel', 'wager returned');
const rollbackReversesDebit = debitThenReversed('rollback', 'debit reversed');

/** 8. Insufficient funds: a debit of more than the balance is refused (HTTP 400). */
async function insufficientFundsRefused(r: Run): Promise<CheckOutcome> {
  const { c, fmt, start } = r;
  if (start === null) return notRun('the balance check failed');
  const intent = intentFor(c);
  const tooMuch = start + 1n;
  const o = await send(c, 'debit', money(intent, 'debit', tooMuch));
  if (o.kind === 'rejected' && o.error === 'insufficient_funds')
    return answer(o, true, `a debit of ${fmt(tooMuch)} was refused: insufficient_funds`);
  if (o.kind === 'success') {
    // Leave nothing behind: reverse the debit the wallet should have refused.
    await send(c, 'rollback', money(intent, 'rollback', tooMuch));
    return answer(
      o,
      false,
      `a debit of ${fmt(tooMuch)} over a balance of ${fmt(start)} was accepted (rolled back again)`,
    );
  }
  return answer(o, false, `expected insufficient_funds, got ${describe(o)}`);
}

/**
 * 9. Protection refusal (optional): the operator's protection test player, a known self-excluded
 * or blocked test account, must be refused with a player-protection code.
 */
async function protectionPlayerRefused(r: Run): Promise<CheckOutcome> {
  const protectionPlayer = r.c.operator.diagnostics_protection_player_id;
  if (!protectionPlayer)
    return {
      passed: false,
      status: 'not_configured',
      detail:
        "not configured: name a test player your wallet always refuses (a self-excluded or blocked test account) as the operator's diagnostics_protection_player_id (PATCH /api/admin/v1/operators/{operator_id}); this check then debits it and expects a player-protection refusal",
      http_status: null,
    };
  const p: Ctx = { ...r.c, playerId: protectionPlayer };
  const intent = intentFor(p);
  const o = await send(p, 'debit', money(intent, 'debit', r.amount));
  const who = `a debit of ${r.fmt(r.amount)} for ${protectionPlayer}`;
  if (o.kind === 'rejected' && (PLAYER_PROTECTION_CODES as readonly string[]).includes(o.error))
    return answer(o, true, `${who} was refused: ${o.error}`);
  if (o.kind === 'success') {
    // Leave nothing behind: reverse the debit the wallet should have refused.
    const back = await send(p, 'rollback', money(intent, 'rollback', r.amount));
    return answer(
      o,
      false,
      `${who} was accepted: the wallet does not refuse its protection test player (${back.kind === 'success' ? 'rolled back again' : `the rollback answered ${describe(back)}`})`,
    );
  }
  if (o.kind === 'rejected')
    return answer(
      o,
      false,
      `${who} was refused with ${o.error}, not a player-protection code (${PLAYER_PROTECTION_CODES.join(', ')})`,
    );
  return answer(o, false, `expected a protection refusal, got ${describe(o)}`);
}

/** The promotional credit's body and the rollback that takes it back whatever the outcome. */
function promoCredit(r: Run) {
  const { c, amount, fmt } = r;
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
  const what = `a promo_win credit of ${fmt(amount)} in round ${payoutId} (no debit, no open round)`;
  return { body, reverse, what };
}

/**
 * 10. A promotional credit (issue 25): `action_type: promo_win` with no open round and no debit,
 * as a tournament prize or prize drop is paid (its round_id a payout id, the player's session
 * possibly long over); its repeat must answer the same and credit once. Then rolled back. Last,
 * so that a wallet which keeps it (a refused rollback) cannot change an earlier check.
 */
async function promoCreditOnce(r: Run): Promise<CheckOutcome> {
  const { c, amount, fmt } = r;
  if (r.start === null) return notRun('the balance check failed');
  const before = minorOf(await r.readBalance(), c.currency);
  if (before === null) return notRun('the balance could not be read again');
  const { body, reverse, what } = promoCredit(r);
  const first = await send(c, 'credit', body);
  if (first.kind !== 'success') {
    const definite = first.kind === 'rejected' || first.kind === 'config_fault';
    return answer(
      first,
      false,
      `${what} was not accepted: ${describe(first)}. The wallet must take a credit whose round has no debit (a tournament prize or prize drop, paid after the player's session may have ended)${definite ? '' : ` (${await reverse()})`}`,
    );
  }
  const after = minorOf(first, c.currency);
  if (after !== before + amount) {
    const undo = await reverse();
    return answer(
      first,
      false,
      `${what}: balance ${fmt(before)} → ${after === null ? first.balance : fmt(after)}, expected ${fmt(before + amount)} (${undo})`,
    );
  }
  const again = await send(c, 'credit', body);
  const now = minorOf(await r.readBalance(), c.currency);
  const undo = await reverse();
  if (again.kind !== 'success')
    return answer(
      again,
      false,
      `${what} was accepted, but its repeat (same transaction_id) answered ${describe(again)}, not the original result (${undo})`,
    );
  if (again.balance !== first.balance || now !== before + amount)
    return answer(
      again,
      false,
      again.balance !== first.balance
        ? `the repeated promo_win credit answered balance ${again.balance}, the original ${first.balance} (${undo})`
        : `the balance is ${now === null ? 'unreadable' : fmt(now)} after the repeat: the promo_win credit was applied twice (${undo})`,
    );
  return answer(
    first,
    true,
    `${what}: balance ${fmt(before)} → ${fmt(after)}; the repeat answered the original result, credited once (${undo})`,
  );
}

/** A row of the table: what the check is called, what it expects (fixed, or from the run), how it runs. */
const check = (
  id: string,
  name: string,
  expected: string | ((r: Run) => string),
  run: (r: Run) => Promise<CheckOutcome>,
): WalletCheck => ({ id, name, expected: typeof expected === 'string' ? () => expected : expected, run });

/** Every check, in the order they run (later ones read what earlier ones found). */
const WALLET_CHECKS: readonly WalletCheck[] = [
  check('signature', 'Bad signature refused', 'HTTP 401 invalid_signature', badSignatureRefused),
  check('balance', 'Balance', 'HTTP 200, success, a decimal-string balance', balanceRead),
  check('debit', 'Debit', (r) => `HTTP 200, balance lowered by ${r.fmt(r.amount)}`, debitLowers),
  check(
    'duplicate',
    'Duplicate transaction_id',
    'the repeated debit returns the original result; no second debit',
    duplicateIsIdempotent,
  ),
  check('credit', 'Credit', (r) => `HTTP 200, balance raised by ${r.fmt(r.amount)}`, creditRaises),
  check('cancel', 'Cancel', 'HTTP 200, the cancelled wager returned', cancelReturnsWager),
  check('rollback', 'Rollback', 'HTTP 200, the debit reversed', rollbackReversesDebit),
  check('insufficient_funds', 'Insufficient funds', 'HTTP 400 insufficient_funds', insufficientFundsRefused),
  check(
    'protection_refusal',
    'Protection refusal',
    `HTTP 400 with a player-protection code (${PLAYER_PROTECTION_CODES.join(', ')}) for the protection test player`,
    protectionPlayerRefused,
  ),
  check(
    'promo_win',
    'Promotional credit (promo_win)',
    (r) =>
      `HTTP 200, balance raised by ${r.fmt(r.amount)} for a promo_win credit with no open round and no debit; its repeat answers the same and credits once`,
    promoCreditOnce,
  ),
];

/** Runs one check, timed; a check that throws has failed. */
async function runCheck(check: WalletCheck, r: Run): Promise<WalletCheckResult> {
  const expected = check.expected(r);
  const t = performance.now();
  let o: CheckOutcome;
  try {
    o = await check.run(r);
  } catch (err) {
    o = { passed: false, detail: `check failed: ${(err as Error).message}`, http_status: null };
  }
  const status: WalletCheckStatus = o.status ?? (o.passed ? 'passed' : 'failed');
  return {
    id: check.id,
    name: check.name,
    expected,
    passed: status === 'passed',
    status,
    detail: o.detail,
    http_status: o.http_status,
    duration_ms: Math.round(performance.now() - t),
  };
}

/**
 * The wallet to check, refused before anything is sent when it is not configured, its URL is
 * refused by the address policy, or the currency is not the operator's.
 */
async function walletUnderTest(
  pool: Pool,
  box: SecretBox,
  operator: OperatorRow,
  input: { playerId: string; currency: string; network?: WalletNetworkPolicy & { requireHttps: boolean } },
): Promise<Ctx> {
  if (!operator.wallet_base_url || !operator.wallet_secret_enc) {
    throw conflict('The operator wallet is not configured (URL and secret)');
  }
  // Issue 23 point 5: a wallet URL naming (or resolving to) an address the policy refuses is
  // never probed. Every connection is checked again (a check whose call was refused says so).
  const network = input.network ?? { allowPrivate: true, requireHttps: false };
  const refusal = await walletUrlRefusal(operator.wallet_base_url, network);
  if (refusal) throw conflict(`The operator wallet URL is refused, nothing was sent: ${refusal}`);
  if (!operator.allowed_currencies.includes(input.currency)) {
    throw invalidField(
      ['body', 'currency'],
      `not one of the operator's currencies (${operator.allowed_currencies.join(', ')})`,
    );
  }
  const { rows } = await pool.query<{ symbol: string }>(
    `SELECT symbol FROM operator_games WHERE operator_id = $1 ORDER BY symbol LIMIT 1`,
    [operator.operator_id],
  );
  return {
    network: { allowPrivate: network.allowPrivate },
    baseUrl: operator.wallet_base_url,
    secret: box.decrypt(operator.wallet_secret_enc),
    operator,
    playerId: input.playerId,
    currency: input.currency,
    gameSymbol: rows[0]?.symbol ?? 'diagnostics',
    sessionId: `diag_session_${randomBytes(6).toString('hex')}`,
  };
}

/** Runs every check in order (WALLET_CHECKS); a check that depends on an earlier failure says so. */
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
  const c = await walletUnderTest(pool, box, operator, input);
  const amount = operator.bet_min_minor;
  const debitIntent = intentFor(c);
  const run: Run = {
    c,
    amount,
    fmt: (minor) => `${minorToDecimalString(minor, c.currency)} ${c.currency}`,
    readBalance: () => send(c, 'balance', balanceBody(c).body),
    start: null,
    debit: { intent: debitIntent, body: money(debitIntent, 'debit', amount) },
  };
  const checks: WalletCheckResult[] = [];
  for (const check of WALLET_CHECKS) checks.push(await runCheck(check, run));
  return {
    passed: checks.every((x) => x.status !== 'failed'),
    wallet_base_url: c.baseUrl,
    player_id: c.playerId,
    currency: c.currency,
    amount_minor: amount.toString(),
    checks,
  };
}
