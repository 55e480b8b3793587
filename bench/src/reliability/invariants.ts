import { journalDrift, reportDrift } from '@opi/api';
import type { WireRecord } from '@opi/wallet-sandbox';
import { type Check, fmtList, type InvariantContext, type JournalRow, type WalletTx } from './checks.js';
import { signedCall } from './http.js';
import { isJackpotCredit, isPromoPayout, promotionInvariants } from './promotions.js';
import type { OperatorSetup, World } from './setup.js';
import type { ReliabilityStack } from './stack.js';
import { readWireLog } from './wire.js';

/** The checks' result type, for the scenarios that add checks of their own. */
export type { Check } from './checks.js';

export const TERMINAL = new Set(['completed', 'rejected', 'cancelled', 'rolled_back']);

export interface AuditRound {
  round_id: string;
  operator_id: string;
  player_id: string;
  provider_id: string;
  currency: string;
  status: string;
  stuck: boolean;
  bet_minor: number;
  win_minor: number;
  created_at: string;
}

function apiOrigin(stack: ReliabilityStack): string {
  const api = stack.apis.find((s) => s.pid) ?? stack.apis[0]!;
  return stack.apiOrigin(api);
}

/** A signed audit read (GET /api/operator/v1/...), retried a few times through a restart. */
export async function auditGet(
  stack: ReliabilityStack,
  op: OperatorSetup,
  pathAndQuery: string,
): Promise<any> {
  let last = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await signedCall(apiOrigin(stack), op.key, 'GET', `/api/operator/v1${pathAndQuery}`);
    if (res.status === 200) return res.json;
    last = `${res.status} ${res.text.slice(0, 200)}`;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`audit GET ${pathAndQuery}: ${last}`);
}

/** Every page of an audit search. */
export async function auditAll(
  stack: ReliabilityStack,
  op: OperatorSetup,
  resource: 'rounds' | 'transactions' | 'promo-payouts',
  query: Record<string, string> = {},
): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const q: URLSearchParams = new URLSearchParams({ ...query, limit: '200', ...(cursor ? { cursor } : {}) });
    const page: { items: any[]; next_cursor: string | null } = (
      await auditGet(stack, op, `/${resource}?${q}`)
    ).data;
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

export interface Backlog {
  open: number;
  settling: number;
  pending: number;
  stuck: number;
  /** Promotional payouts (tournament prizes, prize drops) not yet paid: their credit may not be journalled yet. */
  promos: number;
  /** The rounds concerned (a pending transaction counts for its round), and the unpaid payouts' ids. */
  rounds: Set<string>;
}

/** What is still unsettled, through the audit API of every operator. */
export async function backlog(stack: ReliabilityStack, world: World): Promise<Backlog> {
  const out: Backlog = { open: 0, settling: 0, pending: 0, stuck: 0, promos: 0, rounds: new Set() };
  for (const op of world.audited) {
    const open = await auditAll(stack, op, 'rounds', { status: 'open' });
    const settling = await auditAll(stack, op, 'rounds', { status: 'settling' });
    const stuck = await auditAll(stack, op, 'rounds', { stuck: 'true' });
    const pending = await auditAll(stack, op, 'transactions', { status: 'pending' });
    out.open += open.length;
    out.settling += settling.length;
    out.stuck += stuck.length;
    out.pending += pending.length;
    for (const r of [...open, ...settling, ...stuck, ...pending]) out.rounds.add(r.round_id);
    // A payout a workflow has not yet journalled has no pending transaction, but is unsettled money.
    const promos = await auditAll(stack, op, 'promo-payouts', { status: 'pending' });
    out.promos += promos.length;
    for (const p of promos) out.rounds.add(p.payout_id);
  }
  // The tournament at (or within seconds of) its end and not yet paid: its payouts are being (or
  // are about to be) written, so a drain read now would let the invariants meet them half done.
  // Unsettled until the tournament is paid.
  const { rows: ending } = await stack.pool.query<{ tournament_id: string }>(
    `SELECT tournament_id FROM tournaments
      WHERE tournament_id = $1 AND status NOT IN ('paid', 'cancelled') AND ends_at <= now() + interval '10 seconds'`,
    [world.promotions.tournamentId],
  );
  for (const t of ending) out.rounds.add(`tournament:${t.tournament_id}`);
  return out;
}

/** Nothing unsettled, apart from rounds an earlier scenario already left unsettled (`known`). */
export const drained = (b: Backlog, known: Set<string> = new Set()) =>
  [...b.rounds].every((id) => known.has(id));

interface FreeRoundRow {
  round_id: string;
  operator_id: string;
  campaign_id: string;
  external_player_id: string;
  status: string;
  bet_minor: bigint;
}

/**
 * The invariants of the issue, over everything the run has done so far: the audit API (rounds,
 * backlog, reconciliation), the platform's journal, the sandbox wallet's own ledger and
 * idempotency records, and its wire log (everything it ever received).
 */
export async function checkInvariants(ctx: InvariantContext): Promise<{ checks: Check[]; facts: string[] }> {
  const { stack, world, load } = ctx;
  const checks: Check[] = [];
  const facts: string[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });

  // ── The audit API ─────────────────────────────────────────────────────────────────────────
  const rounds: AuditRound[] = [];
  for (const op of world.audited) rounds.push(...(await auditAll(stack, op, 'rounds')));
  const byRound = new Map(rounds.map((r) => [r.round_id, r]));
  const statusCount: Record<string, number> = {};
  for (const r of rounds) statusCount[r.status] = (statusCount[r.status] ?? 0) + 1;
  facts.push(`${rounds.length} rounds: ${JSON.stringify(statusCount)}`);

  const unsettled = rounds.filter((r) => !TERMINAL.has(r.status) || r.stuck);
  check(
    'every round completed, rejected, cancelled or rolled back (none stuck)',
    unsettled.length === 0,
    unsettled.length
      ? `unsettled: ${fmtList(unsettled.map((r) => `${r.round_id} ${r.status}${r.stuck ? ' stuck' : ''} (${r.provider_id}, created ${r.created_at})`))}`
      : `${rounds.length} rounds terminal`,
  );
  const stillStuck = [...ctx.seenStuck].filter((id) => {
    const r = byRound.get(id);
    return !r || !TERMINAL.has(r.status) || r.stuck;
  });
  check(
    'rounds reported stuck during the fault completed after it',
    stillStuck.length === 0,
    `${ctx.seenStuck.size} reported stuck${stillStuck.length ? `; not completed: ${fmtList(stillStuck)}` : ', all completed'}`,
  );
  const missing = [...load.rounds].filter((id) => !byRound.has(id));
  check(
    'every round a spin answered is in the audit record',
    missing.length === 0,
    missing.length ? `missing: ${fmtList(missing)}` : `${load.rounds.size} answered rounds all recorded`,
  );

  for (const op of world.audited) {
    const rec = (await auditGet(stack, op, '/reconciliation')).data;
    const cur = (rec.currencies as any[])
      .map(
        (c) =>
          `${c.currency} rounds ${c.rounds} wallet ${c.wallet_delta_minor} game ${c.game_delta_minor} diff ${c.difference_minor} pending ${c.pending_transactions}`,
      )
      .join('; ');
    check(
      `reconciliation balanced (${op.operatorId})`,
      rec.balanced === true &&
        (rec.currencies as any[]).every((c) => c.difference_minor === 0 && c.pending_transactions === 0),
      `${cur}${rec.items?.length ? `; differing rounds: ${fmtList(rec.items.map((i: any) => i.round_id))}` : ''}`,
    );
  }

  // ── The platform's journal ─────────────────────────────────────────────────────────────────
  // Reconciliation reads the journal totals each round carries; recounted from the journal itself
  // after everything the run did (faults, kills, restarts), no round's stored totals may differ.
  const drift = (await Promise.all(world.audited.map((o) => journalDrift(stack.pool, o.operatorId)))).flat();
  check(
    "every round's reconciliation row equals a recount from the round and its journal",
    drift.length === 0,
    drift.length
      ? `differ: ${fmtList(drift.map((d) => JSON.stringify(d, (_k, v) => (typeof v === 'bigint' ? String(v) : v))))}`
      : 'recounted for every round of every operator',
  );
  // Issue 38: the daily figures (reports, GGR/GGY, invoices) are a rollup kept in the settlement
  // transaction (migration 41); an independent recount of every round, journal row and
  // promotional payout finds every rollup figure (and the distinct players by title and by day) equal.
  const figures = (await Promise.all(world.audited.map((o) => reportDrift(stack.pool, o.operatorId)))).flat();
  check(
    'every daily figure of the rollup (per operator, title, currency, day) equals a recount from the journal',
    figures.length === 0,
    figures.length
      ? `differ: ${fmtList(figures.map((d) => `${d.operator_id} ${d.key} ${d.field}: report ${d.report}, recount ${d.recount}`))}`
      : 'recounted for every operator',
  );
  // Player protection: a debit refused with a blocking code (self_excluded, session_time_limit,
  // player_blocked, an unknown code) is a rejected round like any refusal (every check here holds
  // for it), and its session takes no further round until the operator relaunches it.
  const afterBlock = await stack.pool.query<{ session_id: string; round_id: string }>(
    `SELECT s.session_id, r.round_id FROM sessions s JOIN rounds r ON r.session_id = s.session_id
     WHERE s.operator_id = ANY($1) AND s.bets_blocked_at IS NOT NULL AND r.created_at > s.bets_blocked_at`,
    [world.audited.map((o) => o.operatorId)],
  );
  check(
    'no round taken in a session while its bets are blocked (player protection)',
    afterBlock.rows.length === 0,
    afterBlock.rows.length
      ? fmtList(afterBlock.rows.map((r) => `${r.round_id} in blocked session ${r.session_id}`))
      : 'none',
  );
  const { rows: journal } = await stack.pool.query<JournalRow>(
    `SELECT transaction_id, operator_id, round_id, player_id, transaction_type, amount_minor, trim(currency) AS currency,
            status, error_code
     FROM wallet_transactions WHERE operator_id = ANY($1)`,
    [world.audited.map((o) => o.operatorId)],
  );
  const journalById = new Map(journal.map((j) => [j.transaction_id, j]));
  // Free rounds (issue 18): no debit ever, only the credit of the win.
  const { rows: freeRounds } = await stack.pool.query<FreeRoundRow>(
    `SELECT r.round_id, r.operator_id, r.free_round_campaign_id AS campaign_id, p.external_player_id,
            r.status, r.bet_minor
     FROM rounds r JOIN players p ON p.player_id = r.player_id
     WHERE r.operator_id = ANY($1) AND r.free_round_campaign_id IS NOT NULL`,
    [world.audited.map((o) => o.operatorId)],
  );
  const freeById = new Map(freeRounds.map((r) => [r.round_id, r]));
  const late = await stack.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rounds r JOIN wallet_transactions w ON w.transaction_id = r.round_id || ':debit'
     WHERE r.operator_id = ANY($1) AND w.created_at - r.created_at > interval '25 seconds'`,
    [world.audited.map((o) => o.operatorId)],
  );
  if (late.rows[0]!.n > 0)
    facts.push(
      `${late.rows[0]!.n} rounds journalled their debit over 25 s after the spin (resumed from their durable intent, or held up by an outage)`,
    );

  // ── The wallet's own records ──────────────────────────────────────────────────────────────
  const { rows: walletTx } = await stack.walletPool.query<WalletTx>(
    `SELECT operator_id, transaction_id, transaction_type, round_id, player_id, trim(currency) AS currency, amount_minor,
            status, player_delta_minor, reversed_by
     FROM wallet.transactions`,
  );
  const ledger = await stack.walletAdmin.ledgerCheck();
  const badTotals = ledger.totals.filter((t) => t.sum_minor !== '0');
  const inconsistent = ledger.accounts.filter((a) => !a.consistent);
  check(
    'the wallet ledger balances (double entry, per account and per currency)',
    ledger.ok && ledger.unbalanced_transactions === 0 && badTotals.length === 0 && inconsistent.length === 0,
    `ok ${ledger.ok}, ${ledger.accounts.length} accounts, unbalanced transactions ${ledger.unbalanced_transactions}, ` +
      `totals ${JSON.stringify(ledger.totals)}${inconsistent.length ? `; inconsistent: ${fmtList(inconsistent.map((a) => a.player_id))}` : ''}`,
  );
  const negative = ledger.accounts.filter((a) => BigInt(a.balance_minor) < 0n);
  check(
    'no balance negative',
    negative.length === 0,
    negative.length
      ? fmtList(negative.map((a) => `${a.player_id} ${a.balance_minor}`))
      : `lowest ${ledger.accounts.reduce((m, a) => (BigInt(a.balance_minor) < m ? BigInt(a.balance_minor) : m), 2n ** 62n)}`,
  );

  // Money conserved per player and currency: what the wallet holds now is what the suite gave
  // the player plus what the platform's journal says moved, to the minor unit.
  const effect = new Map<string, bigint>();
  for (const j of journal) {
    if (j.status !== 'success') continue;
    const key = `${j.operator_id}/${j.player_id}/${j.currency}`;
    let d = 0n;
    if (j.transaction_type === 'debit') d = -j.amount_minor;
    else if (j.transaction_type === 'credit') d = j.amount_minor;
    else if (j.transaction_type === 'cancel' || j.transaction_type === 'rollback') {
      const debit = journalById.get(`${j.round_id}:debit`);
      d = debit?.status === 'success' ? j.amount_minor : 0n;
    }
    effect.set(key, (effect.get(key) ?? 0n) + d);
  }
  const notConserved: string[] = [];
  let totalHeld = 0n;
  for (const a of ledger.accounts) {
    const key = `${a.operator_id}/${a.player_id}/${a.currency}`;
    const opening = load.openings.get(key);
    if (opening === undefined) {
      notConserved.push(`${key}: an account the suite did not open`);
      continue;
    }
    const expected = opening + BigInt(a.deposits_minor) + (effect.get(key) ?? 0n);
    totalHeld += BigInt(a.balance_minor);
    if (BigInt(a.balance_minor) !== expected)
      notConserved.push(`${key}: holds ${a.balance_minor}, expected ${expected}`);
  }
  check(
    'money conserved per player and currency (wallet balance = opening + journalled movements)',
    notConserved.length === 0,
    notConserved.length
      ? fmtList(notConserved)
      : `${ledger.accounts.length} accounts, ${totalHeld} minor units held`,
  );

  // Per round: the wallet's net effect is the game result (win - bet when completed, else zero),
  // the debit took the bet and the credit paid the win.
  const walletByRound = new Map<string, WalletTx[]>();
  for (const t of walletTx) {
    const list = walletByRound.get(t.round_id) ?? [];
    list.push(t);
    walletByRound.set(t.round_id, list);
  }
  // A completed round's jackpot wins are its own credits too (issue 25): the game result counts them.
  const { rows: jackpotWon } = await stack.pool.query<{ round_id: string; jackpot_win_minor: bigint }>(
    `SELECT round_id, jackpot_win_minor FROM rounds WHERE operator_id = ANY($1) AND jackpot_win_minor > 0`,
    [world.audited.map((o) => o.operatorId)],
  );
  const jackpotByRound = new Map(jackpotWon.map((r) => [r.round_id, BigInt(r.jackpot_win_minor)]));
  const roundMismatch: string[] = [];
  for (const r of rounds) {
    const txs = walletByRound.get(r.round_id) ?? [];
    const net = txs.reduce((s, t) => s + t.player_delta_minor, 0n);
    const expected =
      r.status === 'completed'
        ? BigInt(r.win_minor) + (jackpotByRound.get(r.round_id) ?? 0n) - BigInt(r.bet_minor)
        : 0n;
    if (net !== expected) roundMismatch.push(`${r.round_id} (${r.status}): wallet ${net}, game ${expected}`);
    for (const t of txs) {
      if (t.status !== 'success') continue;
      if (t.transaction_type === 'debit' && t.amount_minor !== BigInt(r.bet_minor))
        roundMismatch.push(`${t.transaction_id}: debit ${t.amount_minor}, bet ${r.bet_minor}`);
      // A jackpot credit's amount is checked against its hit (promotions.ts).
      if (
        t.transaction_type === 'credit' &&
        !isJackpotCredit(t.transaction_id) &&
        t.amount_minor !== BigInt(r.win_minor)
      )
        roundMismatch.push(`${t.transaction_id}: credit ${t.amount_minor}, win ${r.win_minor}`);
    }
  }
  // Promotional payouts (tournament prizes, prize drops) are money of a payout, not a round:
  // checked against their payout records in promotions.ts.
  const invented = [...walletByRound.keys()].filter((id) => !byRound.has(id) && !isPromoPayout(id));
  check(
    "each round's wallet effect equals its game result (no money without a round)",
    roundMismatch.length === 0 && invented.length === 0,
    roundMismatch.length || invented.length
      ? fmtList([...roundMismatch, ...invented.map((id) => `wallet money for unknown round ${id}`)])
      : `${walletByRound.size} rounds with wallet movements agree`,
  );

  // Every movement the wallet applied is in the platform's journal as a success (or is a debit
  // the journal records as reversed by its rollback): no money record lost, even when the worker
  // died between the wallet's commit and the journal's record.
  const unrecorded = walletTx
    .filter((t) => t.status === 'success')
    .filter((t) => {
      const j = journalById.get(t.transaction_id);
      if (j?.status === 'success') return false;
      return !(t.transaction_type === 'debit' && j?.error_code === 'reversed_by_rollback' && t.reversed_by);
    });
  check(
    'every wallet movement is journalled by the platform (no lost record)',
    unrecorded.length === 0,
    unrecorded.length
      ? fmtList(
          unrecorded.map(
            (t) => `${t.transaction_id} journal ${journalById.get(t.transaction_id)?.status ?? 'absent'}`,
          ),
        )
      : `${walletTx.filter((t) => t.status === 'success').length} wallet movements all journalled`,
  );

  // No transaction applied twice.
  const twice = await stack.walletPool.query<{ transaction_id: string; n: bigint }>(
    `SELECT transaction_id, count(*) AS n FROM wallet.requests WHERE outcome = 'applied'
     GROUP BY operator_id, transaction_id HAVING count(*) > 1`,
  );
  const doubleEntries = await stack.walletPool.query<{ transaction_ref: string }>(
    `SELECT transaction_ref FROM wallet.ledger_entries WHERE transaction_ref LIKE 'cb:%'
     GROUP BY operator_id, transaction_ref HAVING count(*) > 2`,
  );
  const replays = await stack.walletPool.query<{ outcome: string; n: bigint }>(
    `SELECT outcome, count(*) AS n FROM wallet.requests GROUP BY outcome ORDER BY outcome`,
  );
  check(
    'no transaction_id applied twice',
    twice.rows.length === 0 && doubleEntries.rows.length === 0,
    twice.rows.length || doubleEntries.rows.length
      ? fmtList([
          ...twice.rows.map((r) => r.transaction_id),
          ...doubleEntries.rows.map((r) => r.transaction_ref),
        ])
      : `wallet requests by outcome: ${replays.rows.map((r) => `${r.outcome} ${r.n}`).join(', ')}`,
  );

  // ── The wire log: everything the wallet ever received ─────────────────────────────────────
  const wire = readWireLog(stack.wireLogFile).filter((w) =>
    world.audited.some((o) => o.operatorId === w.operator_id),
  );
  const hashes = new Map<string, Set<string>>();
  const debitsPerRound = new Map<string, Set<string>>();
  const badIds: string[] = [];
  const byOp: Record<string, number> = {};
  for (const w of wire) {
    byOp[w.operation] = (byOp[w.operation] ?? 0) + 1;
    if (typeof w.transaction_id !== 'string' || typeof w.round_id !== 'string') continue;
    // A balance read (a native or crash page's) moves no money and names no round's step.
    if (w.transaction_type === 'balance') continue;
    const set = hashes.get(w.transaction_id) ?? new Set();
    set.add(w.sha256);
    hashes.set(w.transaction_id, set);
    if (
      w.transaction_id !== `${w.round_id}:${w.transaction_type}` &&
      !isJackpotCredit(w.transaction_id, w.round_id)
    )
      badIds.push(w.transaction_id);
    if (w.transaction_type === 'debit') {
      const d = debitsPerRound.get(w.round_id) ?? new Set();
      d.add(w.transaction_id);
      debitsPerRound.set(w.round_id, d);
    }
  }
  const changed = [...hashes.entries()].filter(([, s]) => s.size > 1).map(([id]) => id);
  const multiDebit = [...debitsPerRound.entries()].filter(([, s]) => s.size > 1).map(([id]) => id);
  facts.push(
    `wallet received ${wire.length} callbacks (${Object.entries(byOp)
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )}) for ${hashes.size} money transaction ids: ${wire.filter((w) => w.transaction_type !== 'balance').length - hashes.size} resends`,
  );
  check(
    'no replacement debit: one debit id per round, derived from the round; every resend byte-identical',
    badIds.length === 0 && changed.length === 0 && multiDebit.length === 0,
    badIds.length || changed.length || multiDebit.length
      ? fmtList([
          ...badIds.map((id) => `id not derived from its round: ${id}`),
          ...changed.map((id) => `bytes changed between sends: ${id}`),
          ...multiDebit.map((id) => `several debit ids in round ${id}`),
        ])
      : `${debitsPerRound.size} rounds debited, ${wire.length - hashes.size} resends all identical`,
  );

  const speculative: string[] = [];
  let rollbacks = 0;
  for (const w of wire) {
    if (typeof w.round_id !== 'string') continue;
    const round = byRound.get(w.round_id);
    const debit = journalById.get(`${w.round_id}:debit`);
    if (w.transaction_type === 'cancel') speculative.push(`cancel sent for spin round ${w.round_id}`);
    if (w.transaction_type === 'rollback') {
      rollbacks++;
      if (round?.provider_id !== 'prov_a')
        speculative.push(`rollback for ${round?.provider_id ?? 'unknown'} round ${w.round_id}`);
      if (w.original_transaction_id !== `${w.round_id}:debit`)
        speculative.push(`rollback ${w.transaction_id} names ${String(w.original_transaction_id)}`);
      if (debit && debit.status !== 'pending' && debit.error_code !== 'reversed_by_rollback')
        speculative.push(`rollback of debit ${debit.transaction_id} the journal holds as ${debit.status}`);
    }
    if (w.transaction_type === 'credit') {
      // A free round's credit has no debit before it (checked apart below: it never has one), nor
      // has a promotional payout's (promotions.ts).
      if (debit?.status !== 'success' && !freeById.has(w.round_id) && !isPromoPayout(w.round_id))
        speculative.push(`credit for round ${w.round_id} whose debit is ${debit?.status ?? 'absent'}`);
      if (round && !isJackpotCredit(w.transaction_id as string) && w.amount_minor !== round.win_minor)
        speculative.push(`credit ${w.transaction_id} of ${String(w.amount_minor)}, win ${round.win_minor}`);
    }
  }
  check(
    'no speculative refund: rollbacks only for uncertain prov_a debits, no cancel, credits only after a debit (or for a free round)',
    speculative.length === 0,
    speculative.length
      ? fmtList(speculative)
      : `${rollbacks} rollback sends, all for uncertain prov_a debits`,
  );

  // ── Free rounds (issue 18) ─────────────────────────────────────────────────────────────────
  const freeChecks = await freeRoundInvariants(ctx, freeRounds, journal, walletTx, wire);
  checks.push(...freeChecks.checks);
  facts.push(...freeChecks.facts);

  // ── Jackpots, prize drops and tournaments (issue 25) ─────────────────────────────────────
  const promo = await promotionInvariants(ctx, journal, walletTx, wire);
  checks.push(...promo.checks);
  facts.push(...promo.facts);
  return { checks, facts };
}

/**
 * The free-round invariants, over every free round of the run: (a) no debit for a free round, in
 * the platform's journal, the wallet's transactions and idempotency records, or anything the wallet
 * ever received (the wire log): a free round's only money movement is its credit; (b) per grant,
 * won_minor equals the successful credits of its campaign's rounds for that player in the journal,
 * and equals what the wallet credited for them; (c) rounds_used never exceeds rounds_total and
 * equals the rounds recorded for the grant.
 */
async function freeRoundInvariants(
  ctx: InvariantContext,
  freeRounds: FreeRoundRow[],
  journal: JournalRow[],
  walletTx: WalletTx[],
  wire: WireRecord[],
): Promise<{ checks: Check[]; facts: string[] }> {
  const { stack, world, load } = ctx;
  const checks: Check[] = [];
  const facts: string[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const ops = world.audited.map((o) => o.operatorId);
  const freeById = new Map(freeRounds.map((r) => [r.round_id, r]));
  const { rows: grants } = await stack.pool.query<{
    operator_id: string;
    campaign_id: string;
    external_player_id: string;
    rounds_total: number;
    rounds_used: number;
    won_minor: bigint;
  }>(
    `SELECT operator_id, campaign_id, external_player_id, rounds_total, rounds_used, won_minor
     FROM free_round_grants WHERE operator_id = ANY($1)`,
    [ops],
  );
  const { rows: requests } = await stack.walletPool.query<{
    round_id: string;
    transaction_type: string;
    outcome: string;
  }>(
    `SELECT round_id, transaction_type, outcome FROM wallet.requests
     WHERE round_id = ANY($1) AND transaction_type <> 'credit'`,
    [freeRounds.map((r) => r.round_id)],
  );

  // (a) No debit (nor rollback or cancel) for any free round, anywhere; the round's bet is 0.
  const debited: string[] = [];
  for (const j of journal)
    if (freeById.has(j.round_id) && j.transaction_type !== 'credit')
      debited.push(`journal ${j.transaction_type} ${j.transaction_id} (${j.status})`);
  for (const t of walletTx)
    if (freeById.has(t.round_id) && t.transaction_type !== 'credit')
      debited.push(`wallet ${t.transaction_type} ${t.transaction_id} (${t.status})`);
  for (const q of requests)
    debited.push(`wallet request ${q.transaction_type} for ${q.round_id} (${q.outcome})`);
  let freeSends = 0;
  for (const w of wire) {
    if (typeof w.round_id !== 'string' || !freeById.has(w.round_id)) continue;
    freeSends++;
    if (w.transaction_type !== 'credit')
      debited.push(`wallet received ${w.transaction_type} for ${w.round_id}`);
  }
  for (const r of freeRounds)
    if (r.bet_minor !== 0n) debited.push(`${r.round_id} recorded with bet ${r.bet_minor}`);
  const notFree = [...load.freeRounds].filter((id) => !freeById.has(id));
  const status: Record<string, number> = {};
  for (const r of freeRounds) status[r.status] = (status[r.status] ?? 0) + 1;
  facts.push(
    `free rounds: ${freeRounds.length} over ${grants.length} grants (${JSON.stringify(status)}); ${freeSends} callbacks received for them, all credits`,
  );
  check(
    'no debit ever sent for a free round (journal, wallet transactions and requests, wire log)',
    debited.length === 0 && notFree.length === 0 && (freeRounds.length > 0 || load.granted.size === 0),
    debited.length || notFree.length
      ? fmtList([...debited, ...notFree.map((id) => `answered as a free round, not recorded as one: ${id}`)])
      : freeRounds.length === 0
        ? 'no free round was played'
        : `${freeRounds.length} free rounds, ${freeSends} callbacks, every one a credit`,
  );

  // (b) Won totals equal credits: ours (the journal) and the wallet's.
  const grantKey = (op: string, campaign: string, player: string) => `${op}/${campaign}/${player}`;
  const journalCredits = new Map<string, bigint>();
  for (const j of journal) {
    const r = freeById.get(j.round_id);
    if (!r || j.transaction_type !== 'credit' || j.status !== 'success') continue;
    const k = grantKey(r.operator_id, r.campaign_id, r.external_player_id);
    journalCredits.set(k, (journalCredits.get(k) ?? 0n) + j.amount_minor);
  }
  const walletCredits = new Map<string, bigint>();
  for (const t of walletTx) {
    const r = freeById.get(t.round_id);
    if (!r || t.transaction_type !== 'credit' || t.status !== 'success') continue;
    const k = grantKey(r.operator_id, r.campaign_id, r.external_player_id);
    walletCredits.set(k, (walletCredits.get(k) ?? 0n) + t.amount_minor);
  }
  const wonMismatch: string[] = [];
  let wonTotal = 0n;
  const grantKeys = new Set<string>();
  for (const g of grants) {
    const k = grantKey(g.operator_id, g.campaign_id, g.external_player_id);
    grantKeys.add(k);
    wonTotal += g.won_minor;
    const ours = journalCredits.get(k) ?? 0n;
    const theirs = walletCredits.get(k) ?? 0n;
    if (g.won_minor !== ours || g.won_minor !== theirs)
      wonMismatch.push(`${k}: won_minor ${g.won_minor}, journal credits ${ours}, wallet credits ${theirs}`);
  }
  for (const k of [...journalCredits.keys(), ...walletCredits.keys()])
    if (!grantKeys.has(k)) wonMismatch.push(`${k}: credits for free rounds of no grant`);
  check(
    "free rounds: each grant's won_minor equals its rounds' successful credits (journal) and the wallet's credits",
    wonMismatch.length === 0,
    wonMismatch.length
      ? fmtList(wonMismatch)
      : `${grants.length} grants, ${wonTotal} minor units won and credited`,
  );

  // (c) Rounds counted: never more than granted, and exactly the rounds recorded.
  const recorded = new Map<string, number>();
  for (const r of freeRounds) {
    const k = grantKey(r.operator_id, r.campaign_id, r.external_player_id);
    recorded.set(k, (recorded.get(k) ?? 0) + 1);
  }
  const countMismatch: string[] = [];
  let used = 0;
  let total = 0;
  for (const g of grants) {
    const k = grantKey(g.operator_id, g.campaign_id, g.external_player_id);
    used += g.rounds_used;
    total += g.rounds_total;
    if (g.rounds_used > g.rounds_total)
      countMismatch.push(`${k}: used ${g.rounds_used} of ${g.rounds_total}`);
    if (g.rounds_used !== (recorded.get(k) ?? 0))
      countMismatch.push(`${k}: used ${g.rounds_used}, rounds recorded ${recorded.get(k) ?? 0}`);
  }
  for (const k of recorded.keys()) if (!grantKeys.has(k)) countMismatch.push(`${k}: rounds of no grant`);
  check(
    'free rounds: rounds_used never above rounds_total, and equal to the rounds recorded for the grant',
    countMismatch.length === 0,
    countMismatch.length
      ? fmtList(countMismatch)
      : `${grants.length} grants: ${used} of ${total} rounds used, each recorded`,
  );
  return { checks, facts };
}

/** The wire log records received in [from, to] ms. */
export function wireBetween(stack: ReliabilityStack, from: number, to: number): WireRecord[] {
  return readWireLog(stack.wireLogFile).filter((w) => w.at >= from && w.at <= to);
}
