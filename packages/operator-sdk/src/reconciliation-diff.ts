import { createHash } from 'node:crypto';
import type { CallOptions, OperatorClient } from './client.js';
import type { ReconciliationDiffRequest, ReconciliationDiffResponse } from './types.js';

/*
 * The reconciliation diff's walk (issue 38 point 4), run from your own ledger: you give the wallet
 * transactions you applied in a period; it asks the service, one small request per step, which
 * days differ from the provider's journal, then which hours of those days, which titles of those
 * hours, which hash prefixes of those titles (while a bucket holds more than `maxTransactions`),
 * and finally which transactions: the ones only the provider has (a callback you never applied, or
 * lost), the ones only you have, and the ones whose type, amount or currency differ.
 *
 * Buckets are built from `booked_at`, in the operator's reporting time zone (the service's
 * `time_zone`; UTC unless the provider set another). The provider buckets a transaction by when it
 * journalled it, just before its first send, so a transaction booked across an hour or day
 * boundary shows in two buckets: it is reported as `shifted`, not as a difference.
 */

/** One transaction of your ledger: what the wallet callback carried, and when you applied it. */
export interface LedgerRow {
  transaction_id: string;
  transaction_type: 'debit' | 'credit' | 'cancel' | 'rollback';
  /** The callback's `amount_minor` (integer minor units). */
  amount_minor: bigint | number | string;
  currency: string;
  /** The callback's `game_symbol`. */
  game_symbol: string;
  /** When you applied it. */
  booked_at: Date | string;
}

export interface FindDifferencesOptions {
  /** First and last day (YYYY-MM-DD, inclusive, in the reporting time zone). */
  from: string;
  to: string;
  /** Only this currency. */
  currency?: string;
  /** The operator's reporting time zone (default UTC); checked against the service's answer. */
  timeZone?: string;
  /** A bucket holding at most this many transactions (either side) is compared transaction by transaction (default and most 400). */
  maxTransactions?: number;
  callOptions?: CallOptions;
}

type Diff = ReconciliationDiffResponse['data'];
export type DiffOurTransaction = Diff['only_ours'][number];
export type DiffTheirTransaction = Diff['only_theirs'][number];

export interface LedgerDifferences {
  /** Requests made. */
  calls: number;
  /** Transactions the provider journalled as applied that your ledger (in the period) lacks. */
  onlyOurs: DiffOurTransaction[];
  /** Transactions of your ledger the provider has not journalled as applied. */
  onlyTheirs: DiffTheirTransaction[];
  /** In both, with another type, amount or currency. */
  mismatched: Diff['mismatched'];
  /** In both, in different buckets (booked across a boundary): not a difference. */
  shifted: string[];
  /** Every request of the walk and how many buckets differed (for logs). */
  steps: { level: string; scope: Partial<ReconciliationDiffRequest>; differing: number }[];
}

/** SHA-256 of the transaction's line, as the bucket hash takes it. */
function lineHash(r: LedgerRow): Buffer {
  return createHash('sha256')
    .update(`${r.transaction_id}\n${r.transaction_type}\n${BigInt(r.amount_minor)}\n${r.currency}`, 'utf8')
    .digest();
}

/**
 * A bucket's hash: the XOR of the first 8 bytes of every transaction's line hash, then of the next
 * 8 bytes, as 32 lower-case hex digits (order-free: one pass over the rows in any order).
 */
export function bucketHash(rows: Iterable<LedgerRow>): string {
  return xorHash([...rows].map(lineHash));
}

function xorHash(hashes: Iterable<Buffer>): string {
  let a = 0n;
  let b = 0n;
  for (const h of hashes) {
    a ^= h.readBigUInt64BE(0);
    b ^= h.readBigUInt64BE(8);
  }
  return a.toString(16).padStart(16, '0') + b.toString(16).padStart(16, '0');
}

/** The hex SHA-256 of a transaction id (the `prefix` levels narrow by it). */
export const idHash = (transactionId: string) =>
  createHash('sha256').update(transactionId, 'utf8').digest('hex');

function localParts(tz: string) {
  const f = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  });
  return (d: Date) => {
    const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value]));
    return { day: `${p.year}-${p.month}-${p.day}`, hour: p.hour === '24' ? '00' : (p.hour as string) };
  };
}

interface Located {
  row: LedgerRow;
  day: string;
  hour: string;
  id: string;
  /** The line hash, computed once. */
  h: Buffer;
}

type Scope = Pick<ReconciliationDiffRequest, 'day' | 'hour' | 'game_symbol' | 'prefix' | 'currency'>;
type Level = 'day' | 'hour' | 'title' | 'prefix' | 'transaction';

function bucketOf(level: Level, r: Located, prefixLength: number): string {
  if (level === 'day') return r.day;
  if (level === 'hour') return r.hour;
  if (level === 'title') return r.row.game_symbol;
  return r.id.slice(0, prefixLength + 1);
}

function totals(level: Level, rows: Located[], prefixLength: number) {
  const groups = new Map<string, Located[]>();
  for (const r of rows) {
    const k = `${bucketOf(level, r, prefixLength)}|${r.row.currency}`;
    const g = groups.get(k) ?? [];
    g.push(r);
    groups.set(k, g);
  }
  return [...groups.entries()].map(([k, g]) => {
    const [bucket, currency] = k.split('|') as [string, string];
    let debit = 0n;
    let credit = 0n;
    let reversal = 0n;
    for (const { row } of g) {
      const a = BigInt(row.amount_minor);
      if (row.transaction_type === 'debit') debit += a;
      else if (row.transaction_type === 'credit') credit += a;
      else reversal += a;
    }
    return {
      bucket,
      currency,
      transactions: g.length,
      debit_minor: String(debit),
      credit_minor: String(credit),
      reversal_minor: String(reversal),
      hash: xorHash(g.map((x) => x.h)),
    };
  });
}

/**
 * Runs the diff's walk from your ledger rows and returns the transactions that differ. A day with
 * a million transactions and one missing credit takes five requests (day, hour, title, one hash
 * prefix, transactions).
 */
export async function findLedgerDifferences(
  client: OperatorClient,
  ledger: Iterable<LedgerRow>,
  options: FindDifferencesOptions,
): Promise<LedgerDifferences> {
  const tz = options.timeZone ?? 'UTC';
  const max = Math.min(options.maxTransactions ?? 400, 400);
  const local = localParts(tz);
  const rows: Located[] = [];
  for (const row of ledger) {
    if (options.currency && row.currency !== options.currency) continue;
    const at = row.booked_at instanceof Date ? row.booked_at : new Date(row.booked_at);
    const { day, hour } = local(at);
    if (day < options.from || day > options.to) continue;
    rows.push({ row, day, hour, id: idHash(row.transaction_id), h: lineHash(row) });
  }
  const out: LedgerDifferences = {
    calls: 0,
    onlyOurs: [],
    onlyTheirs: [],
    mismatched: [],
    shifted: [],
    steps: [],
  };

  const ask = async (body: ReconciliationDiffRequest) => {
    out.calls++;
    const res = await client.diffReconciliation(body, options.callOptions);
    if (res.data.time_zone !== tz)
      throw new Error(
        `the operator's reporting time zone is ${res.data.time_zone}, not ${tz}: pass timeZone`,
      );
    return res.data;
  };

  const inScope = (s: Scope) => (r: Located) =>
    (s.day === undefined || r.day === s.day) &&
    (s.hour === undefined || Number(r.hour) === s.hour) &&
    (s.game_symbol === undefined || r.row.game_symbol === s.game_symbol) &&
    (s.prefix === undefined || r.id.startsWith(s.prefix)) &&
    (s.currency === undefined || r.row.currency === s.currency);

  const walk = async (level: Level, scope: Scope, mine: Located[]): Promise<void> => {
    if (level === 'transaction') {
      const d = await ask({
        level,
        ...(scope as Required<Pick<Scope, 'day'>> & Scope),
        transactions: mine.map(({ row }) => ({
          transaction_id: row.transaction_id,
          transaction_type: row.transaction_type,
          amount_minor: String(BigInt(row.amount_minor)),
          currency: row.currency,
        })),
      } as ReconciliationDiffRequest);
      out.steps.push({
        level,
        scope,
        differing: d.only_ours.length + d.only_theirs.length + d.mismatched.length,
      });
      out.onlyOurs.push(...d.only_ours);
      out.onlyTheirs.push(...d.only_theirs);
      out.mismatched.push(...d.mismatched);
      return;
    }
    const prefixLength = scope.prefix?.length ?? 0;
    const buckets = totals(level, mine, prefixLength);
    const body = (
      level === 'day'
        ? {
            level,
            from: options.from,
            to: options.to,
            ...(scope.currency ? { currency: scope.currency } : {}),
            buckets,
          }
        : { level, ...scope, buckets }
    ) as ReconciliationDiffRequest;
    const d = await ask(body);
    out.steps.push({ level, scope, differing: d.differences.length });
    for (const diff of d.differences) {
      const size = Math.max(diff.ours?.transactions ?? 0, diff.theirs?.transactions ?? 0);
      const child: Scope = { ...scope, currency: diff.currency };
      if (level === 'day') child.day = diff.bucket;
      else if (level === 'hour') child.hour = Number(diff.bucket);
      else if (level === 'title') child.game_symbol = diff.bucket;
      else child.prefix = diff.bucket;
      const next: Level =
        level === 'day' ? 'hour' : level === 'hour' ? 'title' : size <= max ? 'transaction' : 'prefix';
      if (next === 'prefix' && (child.prefix?.length ?? 0) >= 15) continue;
      await walk(next, child, mine.filter(inScope(child)));
    }
  };

  if (options.currency) await walk('day', { currency: options.currency }, rows);
  else {
    // At most 400 buckets a request: one walk per currency when the period holds more.
    const days = new Set(rows.map((r) => `${r.day}|${r.row.currency}`));
    if (days.size <= 400) await walk('day', {}, rows);
    else
      for (const c of new Set(rows.map((r) => r.row.currency)))
        await walk(
          'day',
          { currency: c },
          rows.filter((r) => r.row.currency === c),
        );
  }

  // A transaction in both, bucketed apart (booked across a boundary), is no difference.
  const theirs = new Map(out.onlyTheirs.map((t) => [t.transaction_id, t]));
  const ours: DiffOurTransaction[] = [];
  for (const o of out.onlyOurs) {
    const t = theirs.get(o.transaction_id);
    if (!t) {
      ours.push(o);
      continue;
    }
    theirs.delete(o.transaction_id);
    if (
      t.transaction_type === o.transaction_type &&
      BigInt(t.amount_minor) === BigInt(o.amount_minor) &&
      t.currency === o.currency
    )
      out.shifted.push(o.transaction_id);
    else out.mismatched.push({ ours: o, theirs: t });
  }
  out.onlyOurs = ours;
  out.onlyTheirs = [...theirs.values()];
  return out;
}
