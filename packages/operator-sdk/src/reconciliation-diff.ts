import { createHash } from 'node:crypto';
import type { CallOptions, OperatorClient } from './client.js';
import type { ReconciliationDiffRequest, ReconciliationDiffResponse } from './types.js';

/*
 * The reconciliation diff's walk (issue 38 point 4), run from your own ledger: you give the wallet
 * transactions you applied (the period's, or more: rows outside the period are used only to
 * explain a shift at its edges); it asks the service, one small request per step, which days differ
 * from the provider's journal, then, over the smallest period holding every differing day, which
 * buckets of the transaction id's hash differ (256 a request, again inside a bucket while it holds
 * more than `maxTransactions`), and finally which transactions: the ones only the provider has (a
 * callback you never applied, or lost), the ones only you have, and the ones whose type, amount or
 * currency differ.
 *
 * Days are taken from `booked_at`, in the operator's reporting time zone (the service's
 * `time_zone`; UTC unless the provider set another). The provider takes them from when it
 * journalled a transaction, just before its first send, so a transaction booked across a day
 * boundary makes both days differ; inside the period of differing days that is invisible, and hash
 * buckets do not depend on time. A shift across the period's own edge is reported as `shifted`,
 * not as a difference, when your ledger holds the transaction on the other side of the edge.
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
  /** The days (and currencies) whose totals differed at the first step, in order. */
  days: { day: string; currency: string }[];
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
  // Every zone's offset today, and its changes, fall on whole quarter hours: one formatting a quarter.
  const seen = new Map<number, { day: string; hour: string }>();
  return (d: Date) => {
    const quarter = Math.floor(d.getTime() / 900_000);
    let at = seen.get(quarter);
    if (!at) {
      const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value]));
      at = { day: `${p.year}-${p.month}-${p.day}`, hour: p.hour === '24' ? '00' : (p.hour as string) };
      seen.set(quarter, at);
    }
    return at;
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

/** Per-bucket totals of rows, keyed by bucket and currency, as the service takes them. */
function totals(rows: Located[], bucketOf: (r: Located) => string) {
  const groups = new Map<string, Located[]>();
  for (const r of rows) {
    const k = `${bucketOf(r)}|${r.row.currency}`;
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

/** An amount as the service's answers carry it (a JSON integer, exact below 2^53). */
function exactNumber(v: bigint | number | string): number {
  const n = Number(BigInt(v));
  if (!Number.isSafeInteger(n)) throw new RangeError(`an amount beyond 2^53 (${v}) cannot be read exactly`);
  return n;
}

const sameTransaction = (
  a: { transaction_type: string; amount_minor: bigint | number | string; currency: string },
  b: { transaction_type: string; amount_minor: bigint | number | string; currency: string },
) =>
  a.transaction_type === b.transaction_type &&
  BigInt(a.amount_minor) === BigInt(b.amount_minor) &&
  a.currency === b.currency;

/**
 * Runs the diff's walk from your ledger rows and returns the transactions that differ. A month of
 * two million transactions and one missing credit takes four requests: the days, the 256 hash
 * buckets of the differing days' period, the 256 inside the differing one, and its transactions.
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
  // Rows outside the period (or another currency): only to explain a shift across its edge.
  const outside = new Map<string, LedgerRow>();
  for (const row of ledger) {
    const at = row.booked_at instanceof Date ? row.booked_at : new Date(row.booked_at);
    const { day, hour } = local(at);
    if ((options.currency && row.currency !== options.currency) || day < options.from || day > options.to) {
      outside.set(row.transaction_id, row);
      continue;
    }
    rows.push({ row, day, hour, id: idHash(row.transaction_id), h: lineHash(row) });
  }
  const out: LedgerDifferences = {
    calls: 0,
    onlyOurs: [],
    onlyTheirs: [],
    mismatched: [],
    shifted: [],
    days: [],
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

  interface Period {
    from: string;
    to: string;
    currency: string;
  }
  type Size = { ours: number; theirs: number };

  const transactions = async (scope: Period & { prefix?: string }, mine: Located[]) => {
    const d = await ask({
      level: 'transaction',
      ...scope,
      transactions: mine.map(({ row }) => ({
        transaction_id: row.transaction_id,
        transaction_type: row.transaction_type,
        amount_minor: String(BigInt(row.amount_minor)),
        currency: row.currency,
      })),
    } as ReconciliationDiffRequest);
    out.steps.push({
      level: 'transaction',
      scope,
      differing: d.only_ours.length + d.only_theirs.length + d.mismatched.length,
    });
    out.onlyOurs.push(...d.only_ours);
    out.onlyTheirs.push(...d.only_theirs);
    out.mismatched.push(...d.mismatched);
  };

  // A period's (or a hash bucket's) rows: compared transaction by transaction once either side
  // holds at most `max`, else split by two more hex digits of the id's hash (256 buckets).
  const narrow = async (scope: Period & { prefix: string }, mine: Located[], size: Size): Promise<void> => {
    if (Math.max(size.ours, size.theirs) <= max || scope.prefix.length > 14)
      return transactions(
        scope.prefix ? scope : { from: scope.from, to: scope.to, currency: scope.currency },
        mine,
      );
    const digits = 2;
    const n = scope.prefix.length + digits;
    const d = await ask({
      level: 'prefix',
      ...scope,
      digits,
      buckets: totals(mine, (r) => r.id.slice(0, n)),
    } as ReconciliationDiffRequest);
    out.steps.push({ level: 'prefix', scope: { ...scope, digits }, differing: d.differences.length });
    for (const diff of d.differences) {
      if (diff.currency !== scope.currency) continue;
      await narrow(
        { ...scope, prefix: diff.bucket },
        mine.filter((r) => r.id.startsWith(diff.bucket)),
        { ours: diff.ours?.transactions ?? 0, theirs: diff.theirs?.transactions ?? 0 },
      );
    }
  };

  // Step 1: which days differ, per currency (one request while the period's days × currencies fit
  // one, else one a currency).
  const byDay = async (currency: string | undefined, mine: Located[]) => {
    const d = await ask({
      level: 'day',
      from: options.from,
      to: options.to,
      ...(currency ? { currency } : {}),
      buckets: totals(mine, (r) => r.day),
    } as ReconciliationDiffRequest);
    out.steps.push({
      level: 'day',
      scope: { from: options.from, to: options.to, ...(currency ? { currency } : {}) },
      differing: d.differences.length,
    });
    return d;
  };
  const dayAnswers: Diff[] = [];
  if (options.currency) dayAnswers.push(await byDay(options.currency, rows));
  else {
    const days = new Set(rows.map((r) => `${r.day}|${r.row.currency}`));
    if (days.size <= 400) dayAnswers.push(await byDay(undefined, rows));
    else
      for (const c of new Set(rows.map((r) => r.row.currency)))
        dayAnswers.push(
          await byDay(
            c,
            rows.filter((r) => r.row.currency === c),
          ),
        );
  }

  // Step 2 on, per currency: over the smallest period holding every differing day of it (a
  // transaction booked across a day boundary inside it is in the period on both sides).
  const periods = new Map<string, Period>();
  for (const d of dayAnswers)
    for (const diff of d.differences) {
      out.days.push({ day: diff.bucket, currency: diff.currency });
      const p = periods.get(diff.currency);
      if (!p) periods.set(diff.currency, { from: diff.bucket, to: diff.bucket, currency: diff.currency });
      else {
        if (diff.bucket < p.from) p.from = diff.bucket;
        if (diff.bucket > p.to) p.to = diff.bucket;
      }
    }
  out.days.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.currency < b.currency ? -1 : 1));
  for (const p of [...periods.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1))) {
    const mine = rows.filter((r) => r.row.currency === p.currency && r.day >= p.from && r.day <= p.to);
    const ours = dayAnswers
      .flatMap((d) => d.buckets)
      .filter((b) => b.currency === p.currency && b.bucket >= p.from && b.bucket <= p.to)
      .reduce((n, b) => n + b.transactions, 0);
    await narrow({ ...p, prefix: '' }, mine, { ours, theirs: mine.length });
  }

  // A transaction in both, bucketed apart (booked across a boundary), is no difference; nor is one
  // the provider journalled in the period that your ledger booked outside it.
  const theirs = new Map(out.onlyTheirs.map((t) => [t.transaction_id, t]));
  const ours: DiffOurTransaction[] = [];
  for (const o of out.onlyOurs) {
    const t = theirs.get(o.transaction_id) ?? outside.get(o.transaction_id);
    if (!t) {
      ours.push(o);
      continue;
    }
    theirs.delete(o.transaction_id);
    if (sameTransaction(t, o)) out.shifted.push(o.transaction_id);
    else
      out.mismatched.push({
        ours: o,
        theirs: {
          transaction_id: t.transaction_id,
          transaction_type: t.transaction_type,
          amount_minor: exactNumber(t.amount_minor),
          currency: t.currency,
        },
      });
  }
  out.onlyOurs = ours;
  out.onlyTheirs = [...theirs.values()];
  return out;
}
