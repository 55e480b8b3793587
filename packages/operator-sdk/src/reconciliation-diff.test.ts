import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import {
  bucketHash,
  createOperatorClient,
  findLedgerDifferences,
  type LedgerRow,
  type OperatorClient,
} from './index.js';

/*
 * Issue 38 point 4: the reconciliation diff, through the SDK's walk. A day of 3,000 journalled
 * transactions (three titles, every hour, one an hour of 1,200 to force a hash-prefix step) is the
 * provider's side; the operator's ledger is the same rows booked 50 ms later, less a credit it
 * never applied, with one amount changed, one transaction of its own, and one booked across an
 * hour boundary. The walk finds exactly those, in a handful of requests.
 */
let h: Harness;
let client: OperatorClient;
let clientB: OperatorClient;
let keyA = '';
const DAY = '2026-04-10';
const TITLES = ['diff_t1', 'diff_t2', 'diff_t3'];

interface Ours {
  transaction_id: string;
  transaction_type: LedgerRow['transaction_type'];
  amount_minor: bigint;
  currency: string;
  game_symbol: string;
  created_at: Date;
}

before(async () => {
  h = await startApi();
  keyA = (await createOperator(h.base, 'op_diff_a')).key;
  const keyB = (await createOperator(h.base, 'op_diff_b')).key;
  client = createOperatorClient({ baseUrl: h.base, apiKey: keyA });
  clientB = createOperatorClient({ baseUrl: h.base, apiKey: keyB });
  // 1,800 transactions spread over the day's 24 hours, and 1,200 more in hour 13 of title 1; each
  // round a debit and a credit (a third of the rounds also a rollback of a debit, journalled as
  // the wallet applied it). Plus rows that must not count: failed, a balance read, another day of
  // another operator.
  await h.db.pool.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, request_body, request_hash, status, created_at, completed_at)
     SELECT 'dr' || i || ':' || ty, 'op_diff_a', 's', 'dr' || i, 'p', ($2::text[])[1 + i % 3],
            ty, CASE ty WHEN 'debit' THEN 100 + i % 7 WHEN 'credit' THEN (i * 37) % 500 ELSE 100 + i % 7 END,
            CASE WHEN i % 10 = 0 THEN 'USD' ELSE 'EUR' END, '{}', repeat('0', 64), 'success',
            ts, ts + interval '40 milliseconds'
       FROM generate_series(1, 900) i, unnest(ARRAY['debit', 'credit']) ty,
            LATERAL (SELECT ($1::date + (i % 24) * interval '1 hour' + (i * 7 % 3600) * interval '1 second') AS ts) t
     UNION ALL
     SELECT 'dh' || i || ':' || ty, 'op_diff_a', 's', 'dh' || i, 'p', ($2::text[])[1],
            ty, 10 + i % 3, 'EUR', '{}', repeat('0', 64), 'success',
            $1::date + interval '13 hours' + i * interval '2 seconds', NULL
       FROM generate_series(1, 600) i, unnest(ARRAY['debit', 'credit']) ty`,
    [DAY, TITLES],
  );
  await h.db.pool.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, request_body, request_hash, status, created_at, original_transaction_id)
     VALUES ('dr3:rollback', 'op_diff_a', 's', 'dr3', 'p', 'diff_t1', 'rollback', 103, 'EUR', '{}', repeat('0', 64),
             'success', $1::date + interval '3 hours 30 seconds', 'dr3:debit'),
            ('dx1:debit', 'op_diff_a', 's', 'dx1', 'p', 'diff_t1', 'debit', 999, 'EUR', '{}', repeat('0', 64),
             'failed', $1::date + interval '5 hours', NULL),
            ('dx2:balance', 'op_diff_a', 's', 'dx2', 'p', 'diff_t1', 'balance', 0, 'EUR', '{}', repeat('0', 64),
             'success', $1::date + interval '5 hours', NULL),
            ('dz1:debit', 'op_diff_b', 's', 'dz1', 'p', 'diff_t1', 'debit', 5, 'EUR', '{}', repeat('0', 64),
             'success', $1::date + interval '5 hours', NULL)`,
    [DAY],
  );
});
after(() => h?.close());

async function ourRows(): Promise<Ours[]> {
  const { rows } = await h.db.pool.query<Ours>(
    `SELECT transaction_id, transaction_type, amount_minor, trim(currency) AS currency, game_symbol, created_at
       FROM wallet_transactions WHERE operator_id = 'op_diff_a' AND status = 'success' AND transaction_type <> 'balance'`,
  );
  return rows;
}
const ledgerOf = (rows: Ours[]): LedgerRow[] =>
  rows.map((r) => ({ ...r, booked_at: new Date(r.created_at.getTime() + 50) }));

describe('the walk from the operator ledger (SDK findLedgerDifferences)', () => {
  test('a ledger that agrees: one request, nothing differs; the bucket hash is the same on both sides', async () => {
    const rows = await ourRows();
    assert.equal(rows.length, 3001);
    const res = await findLedgerDifferences(client, ledgerOf(rows), { from: DAY, to: DAY });
    assert.equal(res.calls, 1);
    assert.deepEqual([res.onlyOurs, res.onlyTheirs, res.mismatched, res.shifted], [[], [], [], []]);
    const day = await client.diffReconciliation({ level: 'day', from: DAY, to: DAY, buckets: [] });
    const eur = day.data.buckets.find((b) => b.currency === 'EUR')!;
    assert.equal(eur.hash, bucketHash(ledgerOf(rows).filter((r) => r.currency === 'EUR')));
    assert.equal(eur.transactions, rows.filter((r) => r.currency === 'EUR').length);
  });

  test('one credit missing from a busy hour: found in three requests (day, prefix, transactions)', async () => {
    const rows = await ourRows();
    const lost = 'dh321:credit';
    const res = await findLedgerDifferences(client, ledgerOf(rows.filter((r) => r.transaction_id !== lost)), {
      from: DAY,
      to: DAY,
    });
    assert.deepEqual(
      res.onlyOurs.map((t) => [t.transaction_id, t.transaction_type, String(t.amount_minor), t.game_symbol]),
      [[lost, 'credit', String(10 + (321 % 3)), 'diff_t1']],
    );
    assert.deepEqual(res.onlyTheirs, []);
    assert.equal(res.calls, 3, JSON.stringify(res.steps));
    assert.deepEqual(
      res.steps.map((s) => s.level),
      ['day', 'prefix', 'transaction'],
    );
    assert.deepEqual(res.days, [{ day: DAY, currency: 'EUR' }]);
    // Over the day (a period of one), 256 hash buckets of the EUR transactions, then one's.
    assert.deepEqual(res.steps[1]!.scope, { from: DAY, to: DAY, currency: 'EUR', prefix: '', digits: 2 });
    assert.match(String(res.steps[2]!.scope.prefix), /^[0-9a-f]{2}$/);
  });

  test('missing, changed, extra and shifted transactions, in several hours and currencies', async () => {
    const rows = await ourRows();
    const ledger = ledgerOf(rows.filter((r) => r.transaction_id !== 'dr5:credit'));
    const changed = ledger.find((r) => r.transaction_id === 'dr20:debit')!; // USD
    changed.amount_minor = BigInt(changed.amount_minor) + 1n;
    ledger.push({
      transaction_id: 'op-own-1',
      transaction_type: 'credit',
      amount_minor: 77n,
      currency: 'EUR',
      game_symbol: 'diff_t2',
      booked_at: `${DAY}T08:15:00Z`,
    });
    // Journalled at the end of an hour, booked in the next one: inside the period, invisible.
    const edge = rows.find(
      (r) =>
        r.created_at.getUTCHours() < 23 &&
        r.created_at.getUTCMinutes() === 59 &&
        r.created_at.getUTCSeconds() > 50,
    )!;
    const moved = ledger.find((r) => r.transaction_id === edge.transaction_id)!;
    moved.booked_at = new Date(edge.created_at.getTime() + 15_000);
    // Booked the next day, past the period's end: the journal has it in the period, the ledger's
    // row outside it explains it (shifted, not a difference).
    const late = ledger.find((r) => r.transaction_id === 'dr700:debit')!;
    late.booked_at = `${DAY.slice(0, 8)}11T00:00:00.020Z`;
    const res = await findLedgerDifferences(client, ledger, { from: DAY, to: DAY });
    assert.deepEqual(
      res.onlyOurs.map((t) => t.transaction_id),
      ['dr5:credit'],
    );
    assert.deepEqual(
      res.onlyTheirs.map((t) => t.transaction_id),
      ['op-own-1'],
    );
    assert.deepEqual(
      res.mismatched.map((m) => [
        m.ours.transaction_id,
        String(m.ours.amount_minor),
        String(m.theirs.amount_minor),
      ]),
      [['dr20:debit', String(changed.amount_minor - 1n), String(changed.amount_minor)]],
    );
    assert.deepEqual(res.shifted, ['dr700:debit']);
  });

  test('another operator’s journal is never compared; a wrong time zone is refused by the helper', async () => {
    const res = await findLedgerDifferences(clientB, [], { from: DAY, to: DAY });
    assert.deepEqual(
      res.onlyOurs.map((t) => t.transaction_id),
      ['dz1:debit'],
    );
    await assert.rejects(
      findLedgerDifferences(client, [], { from: DAY, to: DAY, timeZone: 'Europe/Malta' }),
      /reporting time zone is UTC/,
    );
  });
});

describe('a month-like ledger booked 40 s late, across hours and days (SDK findLedgerDifferences)', () => {
  // 120,000 transactions over three local days of Europe/Malta (60,000 rounds, a debit and a
  // credit each, every 4.2 s), the operator's ledger booking each 40 s after the journal: some
  // 1,300 land in the next hour by its clock and about 19 in the next day at each day's end. One credit of the middle
  // day is missing from the ledger. Hour and day buckets can never agree; the walk over the period
  // of differing days by id hash finds the credit in four requests (a hash bucket of ~470 is split
  // once more) and reports nothing else.
  const D1 = '2026-05-01';
  const D3 = '2026-05-03';
  const ROUNDS = 60_000;
  let clientC: OperatorClient;
  let journal: Ours[] = [];

  before(async () => {
    const keyC = (await createOperator(h.base, 'op_diff_c')).key;
    clientC = createOperatorClient({ baseUrl: h.base, apiKey: keyC });
    const set = await call(h.base, 'PUT', '/api/admin/v1/operators/op_diff_c/reporting-time-zone', {
      key: ADMIN_KEY,
      sign: true,
      body: { time_zone: 'Europe/Malta' },
    });
    assert.equal(set.status, 200, set.text);
    // From the first local day's 00:00:05 to 22:00 on the third (the last 40 s of the period
    // hold nothing, so the ledger's lag takes nothing past its end).
    await h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, request_body, request_hash, status, created_at)
       SELECT 'mc' || i || ':' || ty, 'op_diff_c', 's', 'mc' || i, 'p', ($3::text[])[1 + i % 3], ty,
              CASE ty WHEN 'debit' THEN 100 + i % 50 ELSE (i * 31) % 700 END, 'EUR', '{}', repeat('0', 64), 'success',
              ($1::timestamp AT TIME ZONE 'Europe/Malta') + interval '5 seconds' + i * interval '4200 milliseconds'
                + CASE ty WHEN 'credit' THEN interval '3 milliseconds' ELSE interval '0' END
         FROM generate_series(0, $2::int - 1) i, unnest(ARRAY['debit', 'credit']) ty`,
      [D1, ROUNDS, TITLES],
    );
    const { rows } = await h.db.pool.query<Ours>(
      `SELECT transaction_id, transaction_type, amount_minor, trim(currency) AS currency, game_symbol, created_at
         FROM wallet_transactions WHERE operator_id = 'op_diff_c'`,
    );
    journal = rows;
  });

  test('one missing credit among 120,000: four requests, no false difference', async () => {
    assert.equal(journal.length, 2 * ROUNDS);
    const lost = 'mc30857:credit'; // the second day's noon, Malta time
    const ledger = journal
      .filter((r) => r.transaction_id !== lost)
      .map((r) => ({ ...r, booked_at: new Date(r.created_at.getTime() + 40_000) }));
    // The lag really moves transactions across hours (and days) by the ledger's clock.
    const hourOf = (d: Date) => Math.floor((d.getTime() + 2 * 3_600_000) / 3_600_000);
    const crossed = journal.filter(
      (r) => hourOf(r.created_at) !== hourOf(new Date(r.created_at.getTime() + 40_000)),
    );
    assert.ok(crossed.length > 1000, `${crossed.length} crossed an hour`);
    const res = await findLedgerDifferences(clientC, ledger, { from: D1, to: D3, timeZone: 'Europe/Malta' });
    assert.deepEqual(
      res.onlyOurs.map((t) => t.transaction_id),
      [lost],
    );
    assert.deepEqual([res.onlyTheirs, res.mismatched, res.shifted], [[], [], []]);
    // Every day differs (transactions booked across both boundaries), the second also by the credit.
    assert.deepEqual(
      res.days.map((d) => d.day),
      [D1, '2026-05-02', D3],
    );
    assert.ok(res.calls <= 6, JSON.stringify(res.steps));
    assert.deepEqual(
      res.steps.map((s) => s.level),
      ['day', 'prefix', 'prefix', 'transaction'],
    );
    assert.deepEqual(
      res.steps.map((s) => s.differing),
      [3, 1, 1, 1],
    );
  });

  test('a ledger that agrees but for its clock: the day request and one of hash buckets', async () => {
    const ledger = journal.map((r) => ({ ...r, booked_at: new Date(r.created_at.getTime() + 40_000) }));
    const res = await findLedgerDifferences(clientC, ledger, { from: D1, to: D3, timeZone: 'Europe/Malta' });
    // The days differ by the clock alone; the hash walk over their period finds nothing.
    assert.deepEqual([res.onlyOurs, res.onlyTheirs, res.mismatched, res.shifted], [[], [], [], []]);
    assert.deepEqual(
      res.steps.map((s) => [s.level, s.differing]),
      [
        ['day', 3],
        ['prefix', 0],
      ],
    );
  });
});

describe('the diff API', () => {
  const post = (body: unknown, key = keyA) =>
    call(h.base, 'POST', '/api/operator/v1/reconciliation/diff', { key, sign: true, body });

  test('bucket totals per level, and buckets only one side has', async () => {
    const hour = await post({
      level: 'hour',
      day: DAY,
      currency: 'EUR',
      buckets: [
        {
          bucket: '13',
          currency: 'EUR',
          transactions: 1,
          debit_minor: 1,
          credit_minor: 0,
          reversal_minor: 0,
        },
        {
          bucket: '23',
          currency: 'EUR',
          transactions: 0,
          debit_minor: 0,
          credit_minor: 0,
          reversal_minor: 0,
        },
      ],
    });
    assert.equal(hour.status, 200, hour.text);
    const d = hour.json.data;
    assert.equal(d.matches, false);
    assert.equal(d.buckets.length, 24);
    const h13 = d.differences.find((x: { bucket: string }) => x.bucket === '13');
    assert.deepEqual(h13.fields, ['transactions', 'debit_minor', 'credit_minor']);
    assert.equal(h13.theirs.hash, null);
    // Hour 3 holds the rollback: reversals are counted apart.
    const h03 = d.buckets.find((x: { bucket: string }) => x.bucket === '03');
    assert.equal(h03.reversal_minor, 103);
    // Every hour of ours the operator left out is a difference, `missing`.
    assert.equal(d.differences.length, 24);
    const title = await post({ level: 'title', day: DAY, hour: 13, buckets: [] });
    assert.deepEqual(
      title.json.data.buckets.map((b: { bucket: string; transactions: number }) => [
        b.bucket,
        b.transactions,
      ]),
      [
        ['diff_t1', 1200],
        ['diff_t2', 74],
      ],
    );
    const prefix = await post({
      level: 'prefix',
      day: DAY,
      hour: 13,
      game_symbol: 'diff_t1',
      prefix: 'a',
      buckets: [],
    });
    assert.equal(prefix.status, 200, prefix.text);
    for (const b of prefix.json.data.buckets) assert.match(b.bucket, /^a[0-9a-f]$/);
  });

  test('levels prefix and transaction over a period; digits 2 makes 256 buckets', async () => {
    // The day's buckets at level day, then the same transactions by two hex digits over a period
    // holding the day (and one before it, empty): every bucket two digits, the totals the same.
    const day = await post({ level: 'day', from: DAY, to: DAY, currency: 'EUR', buckets: [] });
    const total = day.json.data.buckets[0].transactions as number;
    const prefix = await post({
      level: 'prefix',
      from: '2026-04-09',
      to: DAY,
      currency: 'EUR',
      digits: 2,
      buckets: [],
    });
    assert.equal(prefix.status, 200, prefix.text);
    const buckets = prefix.json.data.buckets as { bucket: string; transactions: number }[];
    assert.equal(buckets.length, 256);
    for (const b of buckets) assert.match(b.bucket, /^[0-9a-f]{2}$/);
    assert.equal(
      buckets.reduce((n, b) => n + b.transactions, 0),
      total,
    );
    assert.deepEqual(prefix.json.data.scope, {
      from: '2026-04-09',
      to: DAY,
      day: null,
      hour: null,
      game_symbol: null,
      prefix: null,
      currency: 'EUR',
    });
    // Sent back as the operator's, they match; inside one, two more digits.
    const back = await post({ level: 'prefix', from: DAY, to: DAY, currency: 'EUR', digits: 2, buckets });
    assert.equal(back.json.data.matches, true, back.text.slice(0, 300));
    const inner = await post({
      level: 'prefix',
      from: DAY,
      to: DAY,
      currency: 'EUR',
      prefix: buckets[0]!.bucket,
      digits: 2,
      buckets: [],
    });
    for (const b of inner.json.data.buckets)
      assert.match(b.bucket, new RegExp(`^${buckets[0]!.bucket}[0-9a-f]{2}$`));
    // The transactions of one bucket over the period: ours listed when the operator sends none.
    const tx = await post({
      level: 'transaction',
      from: DAY,
      to: DAY,
      currency: 'EUR',
      prefix: buckets[0]!.bucket,
      transactions: [],
    });
    assert.equal(tx.status, 200, tx.text);
    assert.equal(tx.json.data.only_ours.length, buckets[0]!.transactions);
    // A day-scoped prefix request answers as before (one more digit by default).
    const old = await post({ level: 'prefix', day: DAY, currency: 'EUR', buckets: [] });
    assert.equal(old.json.data.buckets.length, 16);
  });

  test('the largest 256-bucket request fits the body limit', async () => {
    const prefix = 'f'.repeat(14);
    const max = '9223372036854775807';
    const buckets = Array.from({ length: 256 }, (_, i) => ({
      bucket: prefix + i.toString(16).padStart(2, '0'),
      currency: 'EUR',
      transactions: 2147483647,
      debit_minor: max,
      credit_minor: max,
      reversal_minor: max,
      hash: 'f'.repeat(32),
    }));
    const body = {
      level: 'prefix',
      from: '2026-01-01',
      to: '2026-12-31',
      game_symbol: 'x'.repeat(64),
      prefix,
      digits: 2,
      currency: 'EUR',
      buckets,
    };
    assert.ok(JSON.stringify(body).length < 64 * 1024);
    const res = await post(body);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.json.data.differences.length, 256);
  });

  test('a transaction-level scope over 400 of ours is refused: narrow first', async () => {
    const res = await post({ level: 'transaction', day: DAY, hour: 13, transactions: [] });
    assert.equal(res.status, 422, res.text);
    assert.match(res.text, /narrow it first/);
  });

  test('malformed requests are 422 naming the field, never a 5xx', async () => {
    const ok = {
      bucket: DAY,
      currency: 'EUR',
      transactions: 1,
      debit_minor: 1,
      credit_minor: 0,
      reversal_minor: 0,
    };
    const cases: [unknown, string][] = [
      [{ level: 'day', to: DAY, buckets: [] }, 'from'],
      [{ level: 'day', from: '2026-01-01', to: '2027-01-05', buckets: [] }, 'to'],
      [{ level: 'day', from: DAY, to: DAY, day: DAY, buckets: [] }, 'day'],
      [{ level: 'hour', buckets: [] }, 'day'],
      [{ level: 'hour', day: DAY, game_symbol: 'x', buckets: [] }, 'game_symbol'],
      [{ level: 'title', day: DAY, hour: 24, buckets: [] }, 'hour'],
      [{ level: 'prefix', day: DAY, prefix: 'G', buckets: [] }, 'prefix'],
      [{ level: 'prefix', day: DAY, prefix: 'a'.repeat(16), buckets: [] }, 'prefix'],
      [{ level: 'transaction', day: DAY }, 'transactions'],
      [{ level: 'prefix', day: DAY, from: DAY, to: DAY, buckets: [] }, 'day'],
      [{ level: 'prefix', from: DAY, buckets: [] }, 'to'],
      [{ level: 'transaction', to: DAY, transactions: [] }, 'from'],
      [{ level: 'prefix', buckets: [] }, 'day'],
      [{ level: 'transaction', transactions: [] }, 'day'],
      [{ level: 'prefix', from: DAY, to: DAY, hour: 3, buckets: [] }, 'hour'],
      [{ level: 'transaction', from: '2026-04-11', to: DAY, transactions: [] }, 'to'],
      [{ level: 'prefix', from: '2026-01-01', to: '2027-01-05', buckets: [] }, 'to'],
      [{ level: 'hour', from: DAY, to: DAY, buckets: [] }, 'from'],
      [{ level: 'title', day: DAY, from: DAY, to: DAY, buckets: [] }, 'from'],
      [{ level: 'prefix', day: DAY, digits: 3, buckets: [] }, 'digits'],
      [{ level: 'prefix', day: DAY, digits: '2', buckets: [] }, 'digits'],
      [{ level: 'prefix', day: DAY, digits: 0, buckets: [] }, 'digits'],
      [{ level: 'day', from: DAY, to: DAY, digits: 2, buckets: [] }, 'digits'],
      [{ level: 'transaction', day: DAY, digits: 1, transactions: [] }, 'digits'],
      [{ level: 'prefix', day: DAY, prefix: 'a'.repeat(15), digits: 2, buckets: [] }, 'prefix'],
      [{ level: 'transaction', day: DAY, transactions: [], buckets: [] }, 'buckets'],
      [{ level: 'day', from: DAY, to: DAY, buckets: [ok, ok] }, 'buckets'],
      [{ level: 'day', from: DAY, to: DAY, buckets: [{ ...ok, debit_minor: -1 }] }, 'debit_minor'],
      [
        { level: 'day', from: DAY, to: DAY, buckets: [{ ...ok, debit_minor: '9223372036854775808' }] },
        'debit_minor',
      ],
      [{ level: 'day', from: DAY, to: DAY, buckets: [{ ...ok, debit_minor: 1.5 }] }, 'debit_minor'],
      [{ level: 'day', from: DAY, to: DAY, buckets: [{ ...ok, hash: 'XYZ' }] }, 'hash'],
      [{ level: 'day', from: DAY, to: DAY, buckets: [{ ...ok, bucket: 'a\u0000' }] }, 'bucket'],
      [{ level: 'day', from: DAY, to: DAY, buckets: Array.from({ length: 401 }, () => ok) }, 'buckets'],
      [{ level: 'day', from: DAY, to: DAY, buckets: [], extra: 1 }, ''],
      [{ level: 'week' }, 'level'],
      [[1], ''],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      assert.equal(res.status, 422, `${JSON.stringify(body).slice(0, 200)}: ${res.text.slice(0, 300)}`);
      if (field) assert.ok(res.text.includes(field), `${field}: ${res.text.slice(0, 300)}`);
    }
    const big = await post({
      level: 'day',
      from: DAY,
      to: DAY,
      currency: 'EUR',
      buckets: [{ ...ok, debit_minor: '9223372036854775807' }],
    });
    assert.equal(big.status, 200, big.text);
    // The last day there is: its end is year 10000, which the database takes.
    for (const body of [
      { level: 'hour', day: '9999-12-31', buckets: [] },
      { level: 'transaction', day: '9999-12-31', hour: 23, transactions: [] },
      { level: 'day', from: '9999-01-01', to: '9999-12-31', buckets: [] },
      {
        level: 'prefix',
        from: '9999-12-30',
        to: '9999-12-31',
        prefix: 'a'.repeat(14),
        digits: 2,
        buckets: [],
      },
      { level: 'transaction', from: '1970-01-01', to: '1970-01-02', prefix: 'ab', transactions: [] },
    ]) {
      const res = await post(body);
      assert.equal(res.status, 200, res.text);
    }
    assert.equal(
      (
        await call(h.base, 'POST', '/api/operator/v1/reconciliation/diff', {
          key: ADMIN_KEY,
          sign: true,
          body: {},
        })
      ).status,
      403,
    );
  });
});
