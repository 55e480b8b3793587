import { REVENUE_FIGURES, type RevenueReportRow } from '@opi/contract';
import { roundSetHash } from '@opi/signing';
import type { Pool, PoolClient } from 'pg';
import { revenueFigures } from './revenue.js';
import { inReportingSnapshot } from './snapshot.js';

/*
 * An independent recount of the daily figures (issue 38 point 1): every round, journal row and
 * promotional payout of an operator read as they are, and counted here in JavaScript by the
 * definitions of docs/reports-and-invoices.md, then compared with what the report answers from
 * the rollup (migration 1700000000041) for each (day, title, currency), and the distinct players
 * grouped by title and by day (from the rollup's player rows), and each (day, title, currency)'s
 * set of billed rounds (migration 1700000000042: its size and fingerprint, the invoices' round
 * sets). The reports tests and the
 * reliability suite (after every fault) check that nothing differs: the rollup is complete.
 */

export interface FigureDrift {
  operator_id: string;
  key: string;
  field: string;
  report: string;
  recount: string;
}

const FIELDS = REVENUE_FIGURES;

interface Bucket {
  rounds: number;
  players: Set<string>;
  stakes: bigint;
  cancelled: bigint;
  rolledBack: bigint;
  wins: bigint;
  freeWins: bigint;
  jc: bigint;
  jackpot: bigint;
  tournament: bigint;
  prizeDrop: bigint;
  ggyGb: bigint;
  ggyOther: bigint;
  active: boolean;
}

const emptyBucket = (): Bucket => ({
  rounds: 0,
  players: new Set(),
  stakes: 0n,
  cancelled: 0n,
  rolledBack: 0n,
  wins: 0n,
  freeWins: 0n,
  jc: 0n,
  jackpot: 0n,
  tournament: 0n,
  prizeDrop: 0n,
  ggyGb: 0n,
  ggyOther: 0n,
  active: false,
});

const isGb = (j: string | null) => j !== null && (j === 'GB' || j.startsWith('GB-'));

/**
 * Reads an operator's rounds, journal and promotional payouts and counts them by the definitions,
 * with the report's figures and kept round sets for the days counted, all in the caller's snapshot.
 */
async function recount(client: PoolClient, operatorId: string, tz: string) {
  // One formatter for every row (making one per row cost ~0.25 ms each).
  const dayFormat = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const dayOf = (d: Date) => dayFormat.format(d);
  const rounds = (
    await client.query<{
      round_id: string;
      symbol: string;
      currency: string;
      player_id: string;
      status: string;
      free: boolean;
      jc: bigint | null;
      created_at: Date;
      jurisdiction: string | null;
    }>(
      `SELECT r.round_id, r.symbol, trim(r.currency) AS currency, r.player_id, r.status,
            r.free_round_campaign_id IS NOT NULL AS free, r.jackpot_contribution_micros AS jc,
            r.created_at, s.jurisdiction
       FROM rounds r JOIN sessions s ON s.session_id = r.session_id WHERE r.operator_id = $1`,
      [operatorId],
    )
  ).rows;
  const journal = (
    await client.query<{
      transaction_id: string;
      round_id: string;
      transaction_type: string;
      amount_minor: bigint;
      currency: string;
      status: string;
      original_transaction_id: string | null;
    }>(
      `SELECT transaction_id, round_id, transaction_type, amount_minor, trim(currency) AS currency, status,
            original_transaction_id
       FROM wallet_transactions WHERE operator_id = $1`,
      [operatorId],
    )
  ).rows;
  const payouts = (
    await client.query<{
      payout_id: string;
      promo_type: string;
      game_symbol: string;
      currency: string;
      created_at: Date;
      jurisdiction: string | null;
    }>(
      `SELECT p.payout_id, p.promo_type, p.game_symbol, trim(p.currency) AS currency, p.created_at, s.jurisdiction
       FROM promo_payouts p LEFT JOIN sessions s ON s.session_id = p.session_id WHERE p.operator_id = $1`,
      [operatorId],
    )
  ).rows;

  const txById = new Map(journal.map((t) => [t.transaction_id, t]));
  const byRound = new Map<string, typeof journal>();
  for (const t of journal) {
    const list = byRound.get(t.round_id) ?? [];
    list.push(t);
    byRound.set(t.round_id, list);
  }
  const buckets = new Map<string, Bucket>();
  const bucket = (day: string, symbol: string, currency: string) => {
    const key = `${day}|${symbol}|${currency}`;
    let b = buckets.get(key);
    if (!b) {
      b = emptyBucket();
      buckets.set(key, b);
    }
    return b;
  };
  // Each (day, title, currency)'s billed rounds: a successful debit or credit in their currency.
  const billed = new Map<string, string[]>();
  let minDay: string | null = null;
  let maxDay: string | null = null;
  const seeDay = (d: string) => {
    if (minDay === null || d < minDay) minDay = d;
    if (maxDay === null || d > maxDay) maxDay = d;
  };

  for (const r of rounds) {
    let debit = 0n;
    let credit = 0n;
    let jackpot = 0n;
    let cancelled = 0n;
    let rolledBack = 0n;
    for (const t of byRound.get(r.round_id) ?? []) {
      if (t.status !== 'success' || t.currency !== r.currency) continue;
      const reverses = t.original_transaction_id
        ? txById.get(t.original_transaction_id)?.status === 'success'
        : false;
      if (t.transaction_type === 'debit') debit += t.amount_minor;
      else if (t.transaction_type === 'credit') {
        if (t.transaction_id.startsWith(`${r.round_id}:jackpot:`)) jackpot += t.amount_minor;
        else credit += t.amount_minor;
      } else if (t.transaction_type === 'cancel' && reverses) cancelled += t.amount_minor;
      else if (t.transaction_type === 'rollback' && reverses) rolledBack += t.amount_minor;
    }
    if (
      (byRound.get(r.round_id) ?? []).some(
        (t) =>
          t.status === 'success' &&
          t.currency === r.currency &&
          (t.transaction_type === 'debit' || t.transaction_type === 'credit'),
      )
    ) {
      const key = `${dayOf(r.created_at)}|${r.symbol}|${r.currency}`;
      const ids = billed.get(key) ?? [];
      ids.push(r.round_id);
      billed.set(key, ids);
    }
    const stood = !r.free && debit > 0n && cancelled + rolledBack === 0n;
    const counted = r.free ? r.status === 'completed' : stood;
    const moved = debit + credit + jackpot;
    if (!counted && moved === 0n) continue;
    const day = dayOf(r.created_at);
    seeDay(day);
    const b = bucket(day, r.symbol, r.currency);
    b.active = true;
    if (counted) {
      b.rounds++;
      b.players.add(r.player_id);
    }
    b.stakes += debit;
    b.cancelled += cancelled;
    b.rolledBack += rolledBack;
    if (r.free) b.freeWins += credit;
    else b.wins += credit;
    if (stood) b.jc += r.jc ?? 0n;
    b.jackpot += jackpot;
    const ggy = debit - cancelled - rolledBack - credit - jackpot;
    if (isGb(r.jurisdiction)) b.ggyGb += ggy;
    else b.ggyOther += ggy;
  }
  for (const p of payouts) {
    const paid = (byRound.get(p.payout_id) ?? [])
      .filter((t) => t.transaction_type === 'credit' && t.status === 'success' && t.currency === p.currency)
      .reduce((s, t) => s + t.amount_minor, 0n);
    if (paid === 0n) continue;
    const day = dayOf(p.created_at);
    seeDay(day);
    const b = bucket(day, p.game_symbol, p.currency);
    if (p.promo_type === 'tournament') b.tournament += paid;
    else b.prizeDrop += paid;
    if (isGb(p.jurisdiction)) b.ggyGb -= paid;
    else b.ggyOther -= paid;
  }

  const span = minDay === null || maxDay === null ? null : { operatorId, from: minDay, to: maxDay };
  const report = span ? await revenueFigures(client, { ...span, groupBy: 'day_title_currency' }) : [];
  // Distinct players over several days or titles are counted from the rollup's player rows, not
  // summed: checked grouped by title (over the whole span) and by day (over every title).
  const byTitle = span ? await revenueFigures(client, { ...span, groupBy: 'title' }) : [];
  const byDay = span ? await revenueFigures(client, { ...span, groupBy: 'day' }) : [];
  const sets = (
    await client.query<{ key: string; n: string; hash: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') || '|' || symbol || '|' || trim(currency) AS key, sum(billed_rounds)::text AS n,
            ${[1, 2, 3, 4].map((i) => `lpad(to_hex(bit_xor(set_x${i})), 16, '0')`).join(' || ')} AS hash
       FROM report_daily WHERE operator_id = $1 GROUP BY day, symbol, currency`,
      [operatorId],
    )
  ).rows;
  return { buckets, billed, sets, report, byTitle, byDay };
}

/** Recounts one operator's figures from its journal and compares them with the report's. */
export async function reportDrift(pool: Pool, operatorId: string): Promise<FigureDrift[]> {
  // One snapshot for the raw rows and the report's statements.
  const { buckets, billed, sets, report, byTitle, byDay } = await inReportingSnapshot(
    pool,
    operatorId,
    (client, tz) => recount(client, operatorId, tz),
  );

  const drift: FigureDrift[] = [];
  const keptSets = new Map(sets.map((r) => [r.key, r]));
  for (const [key, ids] of billed) {
    const kept = keptSets.get(key);
    keptSets.delete(key);
    const want = { billed_rounds: String(ids.length), round_set_hash: roundSetHash(ids) };
    const got = { billed_rounds: kept?.n ?? 'absent', round_set_hash: kept?.hash ?? 'absent' };
    for (const f of ['billed_rounds', 'round_set_hash'] as const)
      if (got[f] !== want[f])
        drift.push({ operator_id: operatorId, key, field: f, report: got[f], recount: want[f] });
  }
  // What the rollup keeps of days without billed rounds must be empty.
  for (const [key, kept] of keptSets)
    if (kept.n !== '0' || kept.hash !== '0'.repeat(64))
      drift.push({
        operator_id: operatorId,
        key,
        field: 'round_set_hash',
        report: `${kept.n} ${kept.hash}`,
        recount: 'absent',
      });
  const reported = new Map(report.map((r) => [`${r.day}|${r.game_symbol}|${r.currency}`, r]));
  for (const [key, b] of buckets) {
    const net = b.stakes - b.cancelled - b.rolledBack;
    const recount: Record<(typeof FIELDS)[number], string> = {
      rounds: String(b.rounds),
      players: String(b.players.size),
      stakes_minor: String(b.stakes),
      cancelled_stakes_minor: String(b.cancelled),
      rolled_back_stakes_minor: String(b.rolledBack),
      net_stakes_minor: String(net),
      wins_minor: String(b.wins),
      free_round_wins_minor: String(b.freeWins),
      jackpot_contribution_micros: String(b.jc),
      jackpot_wins_minor: String(b.jackpot),
      tournament_payouts_minor: String(b.tournament),
      prize_drop_payouts_minor: String(b.prizeDrop),
      ggr_minor: String(net - b.wins - b.jackpot),
      ggy_minor: String(b.ggyGb + b.ggyOther),
      ggy_gb_minor: String(b.ggyGb),
      ggy_non_gb_minor: String(b.ggyOther),
    };
    const row: RevenueReportRow | undefined = reported.get(key);
    reported.delete(key);
    for (const f of FIELDS) {
      const got = row ? String(row[f]) : 'absent';
      if (got !== recount[f])
        drift.push({ operator_id: operatorId, key, field: f, report: got, recount: recount[f] });
    }
  }
  for (const key of reported.keys())
    drift.push({ operator_id: operatorId, key, field: '*', report: 'present', recount: 'absent' });
  const grouped = (name: string, rows: RevenueReportRow[], keyOf: (bucketKey: string) => string) => {
    const players = new Map<string, Set<string>>();
    for (const [key, b] of buckets) {
      const k = keyOf(key);
      const set = players.get(k) ?? new Set<string>();
      for (const p of b.players) set.add(p);
      players.set(k, set);
    }
    const got = new Map(rows.map((r) => [`${name}:${r.day ?? r.game_symbol}|${r.currency}`, r.players]));
    for (const [k, set] of players) {
      const key = `${name}:${k}`;
      const n = got.get(key);
      got.delete(key);
      if (n !== set.size)
        drift.push({
          operator_id: operatorId,
          key,
          field: 'players',
          report: n === undefined ? 'absent' : String(n),
          recount: String(set.size),
        });
    }
    for (const key of got.keys())
      drift.push({ operator_id: operatorId, key, field: '*', report: 'present', recount: 'absent' });
  };
  grouped('title', byTitle, (key) => {
    const [, symbol, currency] = key.split('|');
    return `${symbol}|${currency}`;
  });
  grouped('day', byDay, (key) => {
    const [day, , currency] = key.split('|');
    return `${day}|${currency}`;
  });
  return drift;
}
