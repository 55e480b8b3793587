import {
  DIFF_DEFINITION_VERSION,
  DIFF_MAX_ITEMS,
  type DiffTotalsInput,
  type ReconciliationDiff,
  type ReconciliationDiffRequest,
} from '@opi/contract';
import { invalidField } from '@opi/service-kit/http/named-errors';
import type { Pool } from 'pg';
import { inReportingSnapshot } from './snapshot.js';

/*
 * The reconciliation diff (issue 38 point 4; docs/reports-and-invoices.md "The reconciliation
 * diff"). The operator's ledger and our journal are compared bucket by bucket, over the wallet
 * transactions the operator applied: our journal rows with status `success`, type debit, credit,
 * cancel or rollback. A transaction's bucket is taken from when we journalled it (`created_at`,
 * just before its first send), in the operator's reporting time zone; every read is a range of
 * wallet_transactions_operator_status (operator, status, created_at), so no index is added to the
 * journal's write path. Levels `prefix` and `transaction` may be scoped to a period (`from`–`to`,
 * whole local days) instead of a day: the operator's clock books a transaction in a bucket of its
 * own, so a transaction near a day's end may sit in the next day on its side; over a period that
 * holds both days the shift is invisible, and the id-hash buckets (`digits` 2: 256 a request)
 * narrow a month to one transaction in a few requests.
 *
 * A bucket's hash is order-free, so either side can build it in one pass: for each transaction,
 * h = SHA-256 of `transaction_id \n transaction_type \n amount_minor \n currency` (UTF-8); the
 * bucket's hash is the XOR of the first 8 bytes of every h, then the XOR of the next 8 bytes,
 * written as 32 lower-case hex digits (0…0 for an empty bucket).
 */

const HASH = `encode(sha256(convert_to(t.transaction_id || E'\\n' || t.transaction_type || E'\\n' || t.amount_minor::text
  || E'\\n' || trim(t.currency), 'UTF8')), 'hex')`;
const ID_HASH = `encode(sha256(convert_to(t.transaction_id, 'UTF8')), 'hex')`;

/** The local window (the operator's zone): from `day` at `hour`, `hours` long. */
interface Window {
  day: string;
  hour: number;
  hours: number;
}

function windowOf(q: ReconciliationDiffRequest): Window {
  // Level day, or level prefix or transaction scoped to a period (from and to, inclusive days).
  if (q.from !== undefined && q.to !== undefined) {
    const days = (Date.parse(q.to!) - Date.parse(q.from!)) / 86_400_000 + 1;
    return { day: q.from!, hour: 0, hours: days * 24 };
  }
  if (q.hour !== undefined) return { day: q.day!, hour: q.hour, hours: 1 };
  return { day: q.day!, hour: 0, hours: 24 };
}

/**
 * The scope's rows: $1 operator, $2 day, $3 hour, $4 hours (the local window, computed in SQL so
 * 9999-12-31's end, in year 10000, is a timestamp too), $5 currency, $6 title, $7 prefix.
 */
const SCOPE = `
  op AS (SELECT reporting_time_zone AS tz FROM operators WHERE operator_id = $1),
  scoped AS (
    SELECT t.*, (t.created_at AT TIME ZONE op.tz) AS local
      FROM op, wallet_transactions t
     WHERE t.operator_id = $1 AND t.status = 'success'
       AND t.created_at >= (($2::date + $3::int * interval '1 hour') AT TIME ZONE op.tz)
       AND t.created_at < (($2::date + ($3::int + $4::int) * interval '1 hour') AT TIME ZONE op.tz)
       AND t.transaction_type IN ('debit', 'credit', 'cancel', 'rollback')
       AND ($5::text IS NULL OR t.currency = $5)
       AND ($6::text IS NULL OR t.game_symbol = $6)
       AND ($7::text = '' OR starts_with(${ID_HASH}, $7))
  )`;

const BUCKET_EXPR: Record<Exclude<ReconciliationDiffRequest['level'], 'transaction'>, string> = {
  day: `to_char(local, 'YYYY-MM-DD')`,
  hour: `to_char(local, 'HH24')`,
  title: 'game_symbol',
  prefix: `substr(${ID_HASH}, 1, $8::int)`,
};

interface OurBucket {
  bucket: string;
  currency: string;
  transactions: number;
  debit_minor: bigint;
  credit_minor: bigint;
  reversal_minor: bigint;
  hash: string;
}

interface OurTx {
  transaction_id: string;
  transaction_type: string;
  amount_minor: bigint;
  currency: string;
  round_id: string;
  game_symbol: string;
  journalled_at: Date;
}

const TOTALS = ['transactions', 'debit_minor', 'credit_minor', 'reversal_minor'] as const;

/** Level transaction: the scope's transactions, one more than a response holds. */
const TRANSACTIONS = `WITH ${SCOPE}
  SELECT transaction_id, transaction_type, amount_minor, trim(currency) AS currency, round_id, game_symbol,
         created_at AS journalled_at
    FROM scoped ORDER BY transaction_id COLLATE "C" LIMIT ${DIFF_MAX_ITEMS + 1}`;

/** The other levels: the scope's totals and hash for each bucket and currency. */
const bucketsSql = (level: keyof typeof BUCKET_EXPR) => `WITH ${SCOPE}
  SELECT ${BUCKET_EXPR[level]} AS bucket, trim(currency) AS currency, count(*)::int AS transactions,
         coalesce(sum(amount_minor) FILTER (WHERE transaction_type = 'debit'), 0)::bigint AS debit_minor,
         coalesce(sum(amount_minor) FILTER (WHERE transaction_type = 'credit'), 0)::bigint AS credit_minor,
         coalesce(sum(amount_minor) FILTER (WHERE transaction_type IN ('cancel', 'rollback')), 0)::bigint
           AS reversal_minor,
         lpad(to_hex(bit_xor(('x' || substr(h, 1, 16))::bit(64)::bigint)), 16, '0') ||
         lpad(to_hex(bit_xor(('x' || substr(h, 17, 16))::bit(64)::bigint)), 16, '0') AS hash
    FROM (SELECT t.*, ${HASH} AS h FROM scoped t) t
   GROUP BY 1, 2`;

export async function reconciliationDiff(
  pool: Pool,
  operatorId: string,
  q: ReconciliationDiffRequest,
): Promise<ReconciliationDiff> {
  const w = windowOf(q);
  const prefix = q.prefix ?? '';
  const params = [operatorId, w.day, w.hour, w.hours, q.currency ?? null, q.game_symbol ?? null, prefix];
  // Our side from one snapshot, in the operator's reporting time zone.
  const { tz, txs, buckets } = await inReportingSnapshot(pool, operatorId, async (client, tz) => ({
    tz,
    txs: q.level === 'transaction' ? (await client.query<OurTx>(TRANSACTIONS, params)).rows : [],
    buckets:
      q.level === 'transaction'
        ? []
        : (
            await client.query<OurBucket>(
              bucketsSql(q.level),
              q.level === 'prefix' ? [...params, prefix.length + (q.digits ?? 1)] : params,
            )
          ).rows,
  }));
  const base: ReconciliationDiff = {
    definition_version: DIFF_DEFINITION_VERSION,
    operator_id: operatorId,
    level: q.level,
    time_zone: tz,
    scope: {
      from: q.from ?? null,
      to: q.to ?? null,
      day: q.day ?? null,
      hour: q.hour ?? null,
      game_symbol: q.game_symbol ?? null,
      prefix: q.prefix ?? null,
      currency: q.currency ?? null,
    },
    matches: true,
    buckets: [],
    differences: [],
    only_ours: [],
    only_theirs: [],
    mismatched: [],
  };

  if (q.level === 'transaction') {
    if (txs.length > DIFF_MAX_ITEMS)
      throw invalidField(
        ['body', 'level'],
        `more than ${DIFF_MAX_ITEMS} transactions in this scope: narrow it first (level prefix)`,
      );
    const theirs = new Map(q.transactions!.map((t) => [t.transaction_id, t]));
    const present = (t: OurTx) => ({ ...t, journalled_at: t.journalled_at.toISOString() });
    for (const ours of txs) {
      const t = theirs.get(ours.transaction_id);
      theirs.delete(ours.transaction_id);
      if (!t) base.only_ours.push(present(ours));
      else if (
        t.transaction_type !== ours.transaction_type ||
        BigInt(t.amount_minor) !== ours.amount_minor ||
        t.currency !== ours.currency
      )
        base.mismatched.push({
          ours: present(ours),
          theirs: { ...t, amount_minor: BigInt(t.amount_minor) },
        });
    }
    base.only_theirs = [...theirs.values()].map((t) => ({ ...t, amount_minor: BigInt(t.amount_minor) }));
    base.matches = !base.only_ours.length && !base.only_theirs.length && !base.mismatched.length;
    return base;
  }

  const key = (b: { bucket: string; currency: string }) => `${b.bucket}|${b.currency}`;
  // Byte order (ids and symbols are ASCII), the same on every server.
  base.buckets = buckets.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const theirs = new Map<string, DiffTotalsInput>();
  for (const b of q.buckets!) {
    if (theirs.has(key(b))) throw invalidField(['body', 'buckets'], `bucket ${b.bucket} ${b.currency} twice`);
    theirs.set(key(b), b);
  }
  for (const ours of buckets) {
    const t = theirs.get(key(ours));
    theirs.delete(key(ours));
    const ourTotals = {
      transactions: ours.transactions,
      debit_minor: ours.debit_minor,
      credit_minor: ours.credit_minor,
      reversal_minor: ours.reversal_minor,
      hash: ours.hash,
    };
    if (!t) {
      base.differences.push({
        bucket: ours.bucket,
        currency: ours.currency,
        ours: ourTotals,
        theirs: null,
        fields: ['missing'],
      });
      continue;
    }
    const fields: string[] = TOTALS.filter((f) => BigInt(t[f]) !== BigInt(ours[f]));
    if (t.hash !== undefined && t.hash !== ours.hash) fields.push('hash');
    if (fields.length)
      base.differences.push({
        bucket: ours.bucket,
        currency: ours.currency,
        ours: ourTotals,
        theirs: theirTotals(t),
        fields,
      });
  }
  for (const t of theirs.values()) {
    // A bucket the operator sent with nothing in it matches our having none.
    if (
      t.transactions === 0 &&
      BigInt(t.debit_minor) + BigInt(t.credit_minor) + BigInt(t.reversal_minor) === 0n
    )
      continue;
    base.differences.push({
      bucket: t.bucket,
      currency: t.currency,
      ours: null,
      theirs: theirTotals(t),
      fields: ['missing'],
    });
  }
  base.differences.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  base.matches = base.differences.length === 0;
  return base;
}

const theirTotals = (t: DiffTotalsInput) => ({
  transactions: t.transactions,
  debit_minor: BigInt(t.debit_minor),
  credit_minor: BigInt(t.credit_minor),
  reversal_minor: BigInt(t.reversal_minor),
  hash: t.hash ?? null,
});
