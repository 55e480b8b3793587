import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { rebuildRoundReconciliation } from '@opi/db';
import { CATALOG } from '@opi/games';
import { roundSetHash } from '@opi/signing';
import { createOperator, type Harness, startApi } from '@opi/testkit/harness';
import pg from 'pg';
import { reportDrift } from './recount.js';
import { revenueFigures } from './revenue.js';

/*
 * Issue 38 points 1 and 6: the reports' rollup (migration 1700000000041) is kept in the same
 * transaction as every change that moves a figure, by any writer: rounds and journal rows written
 * over several transactions, concurrently on many connections (the shards), a round moved to
 * another day or deleted, a payout's credit journalled before its payout, a change of reporting
 * zone racing a writer, and a load with triggers off rebuilt set-based. After each, every figure
 * equals the recount from the journal (reportDrift), the day's set of billed rounds too (migration
 * 1700000000042: the invoices' round sets).
 */
const [S1, S2] = CATALOG.filter((e) => e.provider_id === 'prov_a').map((e) => e.symbol) as [string, string];
const OP = 'op_rollup';
let h: Harness;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function round(
  c: pg.Pool | pg.PoolClient,
  id: string,
  session: string,
  player: string,
  symbol: string,
  at: string,
) {
  await c.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
       bet_minor, win_minor, intent, created_at)
     VALUES ($1, $2, $3, $4, $5, 'prov_a', 'EUR', 'open', 100, 0, '{}', $6)`,
    [id, OP, session, player, symbol, at],
  );
}
async function tx(
  c: pg.Pool | pg.PoolClient,
  id: string,
  roundId: string,
  type: string,
  amount: number,
  status: 'success' | 'failed' | 'pending',
  original?: string,
) {
  const body = JSON.stringify({ transaction_id: id, amount_minor: amount });
  await c.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, request_body, request_hash, original_transaction_id, status)
     VALUES ($1, $2, 's', $3, 'x', $4, $5, $6, 'EUR', $7, $8, $9, $10)`,
    [id, OP, roundId, S1, type, amount, body, sha(body), original ?? null, status],
  );
}
const drift = () => reportDrift(h.db.pool, OP);

before(async () => {
  h = await startApi();
  await createOperator(h.base, OP);
  for (const p of ['ru_p1', 'ru_p2', 'ru_p3'])
    await h.db.pool.query(
      `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ($1, $2, $1, 'global')`,
      [p, OP],
    );
  for (const [s, p, sym, j] of [
    ['ru_s1', 'ru_p1', S1, null],
    ['ru_s2', 'ru_p2', S1, 'GB'],
    ['ru_s3', 'ru_p3', S2, null],
  ] as const)
    await h.db.pool.query(
      `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency, jurisdiction)
       VALUES ($1, $2, $3, $4, 'prov_a', 'EUR', $5)`,
      [s, OP, p, sym, j],
    );
});
after(async () => {
  await h?.close();
});

describe('the reports rollup', () => {
  test('a round over three transactions (open, debit taken, credit and completed): the sums follow each', async () => {
    const at = '2026-04-01T10:00:00Z';
    await round(h.db.pool, 'ru1', 'ru_s1', 'ru_p1', S1, at);
    await tx(h.db.pool, 'ru1:debit', 'ru1', 'debit', 100, 'pending');
    assert.deepEqual(await drift(), []);
    assert.deepEqual(
      await revenueFigures(h.db.pool, {
        operatorId: OP,
        from: '2026-04-01',
        to: '2026-04-01',
        groupBy: 'day',
      }),
      [],
    );
    await h.db.pool.query(
      `UPDATE wallet_transactions SET status = 'success' WHERE transaction_id = 'ru1:debit'`,
    );
    let [row] = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-01',
      to: '2026-04-01',
      groupBy: 'day',
    });
    assert.equal(row?.rounds, 1);
    assert.equal(row?.stakes_minor, 100n);
    const c = await h.db.pool.connect();
    try {
      await c.query('BEGIN');
      await tx(c, 'ru1:credit', 'ru1', 'credit', 250, 'success');
      await c.query(`UPDATE rounds SET status = 'completed', win_minor = 250 WHERE round_id = 'ru1'`);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    [row] = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-01',
      to: '2026-04-01',
      groupBy: 'day',
    });
    assert.equal(row?.wins_minor, 250n);
    assert.equal(row?.ggy_non_gb_minor, -150n);
    assert.deepEqual(await drift(), []);
  });

  test('forty rounds settled at once on many connections (one title, one day): every shard adds up', async () => {
    const at = '2026-04-02T10:00:00Z';
    const clients = await Promise.all(
      Array.from({ length: 8 }, () => new pg.Pool({ connectionString: h.db.url, max: 1 })),
    );
    try {
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const c = await clients[i % 8]!.connect();
          try {
            await c.query('BEGIN');
            const id = `ru_c${i}`;
            await round(c, id, i % 2 ? 'ru_s1' : 'ru_s2', i % 2 ? 'ru_p1' : 'ru_p2', S1, at);
            await tx(c, `${id}:debit`, id, 'debit', 100, 'success');
            await tx(c, `${id}:credit`, id, 'credit', i, 'success');
            await c.query(`UPDATE rounds SET status = 'completed', win_minor = $2 WHERE round_id = $1`, [
              id,
              i,
            ]);
            await c.query('COMMIT');
          } finally {
            c.release();
          }
        }),
      );
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    const [row] = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-02',
      to: '2026-04-02',
      groupBy: 'day',
    });
    assert.equal(row?.rounds, 40);
    assert.equal(row?.players, 2);
    assert.equal(row?.stakes_minor, 4000n);
    assert.equal(row?.wins_minor, 780n);
    const shards = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM report_daily WHERE operator_id = $1 AND day = '2026-04-02'`,
      [OP],
    );
    assert.ok(shards.rows[0].n >= 1);
    assert.deepEqual(await drift(), []);
  });

  test('a round moved to another day, a rolled-back round and a deleted round leave the sums exact', async () => {
    await round(h.db.pool, 'ru_m', 'ru_s3', 'ru_p3', S2, '2026-04-03T10:00:00Z');
    await tx(h.db.pool, 'ru_m:debit', 'ru_m', 'debit', 300, 'success');
    await h.db.pool.query(`UPDATE rounds SET created_at = '2026-04-04T10:00:00Z' WHERE round_id = 'ru_m'`);
    const byDay = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-03',
      to: '2026-04-04',
      groupBy: 'day',
    });
    assert.deepEqual(
      byDay.map((r) => [r.day, r.rounds, r.stakes_minor]),
      [['2026-04-04', 1, 300n]],
    );
    await tx(h.db.pool, 'ru_m:rollback', 'ru_m', 'rollback', 300, 'success', 'ru_m:debit');
    await h.db.pool.query(`UPDATE rounds SET status = 'rolled_back' WHERE round_id = 'ru_m'`);
    const [rb] = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-04',
      to: '2026-04-04',
      groupBy: 'day',
    });
    assert.deepEqual(
      [rb?.rounds, rb?.players, rb?.rolled_back_stakes_minor, rb?.net_stakes_minor],
      [0, 0, 300n, 0n],
    );
    assert.deepEqual(await drift(), []);
    await round(h.db.pool, 'ru_gone', 'ru_s3', 'ru_p3', S2, '2026-04-05T10:00:00Z');
    await tx(h.db.pool, 'ru_gone:debit', 'ru_gone', 'debit', 100, 'success');
    const [before] = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-05',
      to: '2026-04-05',
      groupBy: 'day',
    });
    assert.equal(before?.rounds, 1);
    await h.db.pool.query(`DELETE FROM rounds WHERE round_id = 'ru_gone'`);
    assert.deepEqual(
      await revenueFigures(h.db.pool, {
        operatorId: OP,
        from: '2026-04-05',
        to: '2026-04-05',
        groupBy: 'day',
      }),
      [],
    );
    assert.deepEqual(await drift(), []);
  });

  test('a payout credit journalled before its payout row counts when the payout arrives', async () => {
    await tx(
      h.db.pool,
      'pp_t_cup_0123456789abcdef0123456789abcdef:credit',
      'pp_t_cup_0123456789abcdef0123456789abcdef',
      'credit',
      500,
      'success',
    );
    await h.db.pool.query(
      `INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id, currency,
         amount_minor, rank, session_id, game_symbol, status, created_at, paid_at)
       VALUES ('pp_t_cup_0123456789abcdef0123456789abcdef', 'tournament', 'cup', $1, 'ru_p2', 'ru_p2', 'EUR', 500, 1,
               'ru_s2', $2, 'paid', '2026-04-06T10:00:00Z', now())`,
      [OP, S1],
    );
    const [row] = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-06',
      to: '2026-04-06',
      groupBy: 'day',
    });
    assert.deepEqual([row?.tournament_payouts_minor, row?.ggy_gb_minor], [500n, -500n]);
    assert.deepEqual(await drift(), []);
    await h.db.pool.query(
      `DELETE FROM promo_payouts WHERE payout_id = 'pp_t_cup_0123456789abcdef0123456789abcdef'`,
    );
    assert.deepEqual(
      await revenueFigures(h.db.pool, {
        operatorId: OP,
        from: '2026-04-06',
        to: '2026-04-06',
        groupBy: 'day',
      }),
      [],
    );
    assert.deepEqual(await drift(), []);
  });

  test('a change of zone committed while a writer commits: the writer waits for the rebuild, then adds in the new zone', async () => {
    // A round at 23:30 UTC: 2026-04-07 in UTC, 2026-04-08 in Malta (UTC+2).
    const writer = await h.db.pool.connect();
    const admin = await h.db.pool.connect();
    try {
      await writer.query('BEGIN');
      await round(writer, 'ru_z', 'ru_s1', 'ru_p1', S1, '2026-04-07T23:30:00Z');
      await tx(writer, 'ru_z:debit', 'ru_z', 'debit', 100, 'success');
      await admin.query('BEGIN');
      await admin.query(`UPDATE operators SET reporting_time_zone = 'Europe/Malta' WHERE operator_id = $1`, [
        OP,
      ]);
      // The rebuild holds the exclusive lock: the writer's commit (its deferred recount) waits.
      const committing = writer.query('COMMIT');
      for (let i = 0; i < 200; i++) {
        const { rows } = await h.db.pool.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 38 AND NOT granted`,
        );
        if (rows.length) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await admin.query('COMMIT');
      await committing;
      const days = await revenueFigures(h.db.pool, {
        operatorId: OP,
        from: '2026-04-07',
        to: '2026-04-08',
        groupBy: 'day',
      });
      assert.deepEqual(
        days.map((r) => [r.day, r.rounds]),
        [['2026-04-08', 1]],
      );
      assert.deepEqual(await drift(), []);
    } finally {
      await admin
        .query(`UPDATE operators SET reporting_time_zone = 'UTC' WHERE operator_id = $1`, [OP])
        .catch(() => {});
      writer.release();
      admin.release();
    }
    assert.deepEqual(await drift(), []);
  });

  test('rounds loaded with the triggers off are reported once rebuildRoundReconciliation has run', async () => {
    const c = await h.db.pool.connect();
    try {
      await c.query(`SET session_replication_role = replica`);
      await round(c, 'ru_load', 'ru_s3', 'ru_p3', S2, '2026-04-09T10:00:00Z');
      await tx(c, 'ru_load:debit', 'ru_load', 'debit', 700, 'success');
    } finally {
      await c.query(`RESET session_replication_role`);
      c.release();
    }
    assert.notDeepEqual(await drift(), []);
    await rebuildRoundReconciliation(h.db.pool);
    const [row] = await revenueFigures(h.db.pool, {
      operatorId: OP,
      from: '2026-04-09',
      to: '2026-04-09',
      groupBy: 'day',
    });
    assert.deepEqual([row?.rounds, row?.stakes_minor], [1, 700n]);
    assert.deepEqual(await drift(), []);
  });
  test('a day’s billed set: a round joins it when a debit or credit succeeds, leaves it when it moves away; a tampered word is found', async () => {
    const at = '2026-04-12T08:00:00Z';
    const set = async () =>
      (
        await h.db.pool.query<{ n: string; hash: string }>(
          `SELECT sum(billed_rounds)::text AS n,
                  ${[1, 2, 3, 4].map((i) => `lpad(to_hex(bit_xor(set_x${i})), 16, '0')`).join(' || ')} AS hash
             FROM report_daily WHERE operator_id = $1 AND day = '2026-04-12'`,
          [OP],
        )
      ).rows[0]!;
    await round(h.db.pool, 'ru_b1', 'ru_s1', 'ru_p1', S1, at);
    await round(h.db.pool, 'ru_b2', 'ru_s1', 'ru_p1', S1, at);
    // A refused debit bills nothing; a pending one neither.
    await tx(h.db.pool, 'ru_b1:debit', 'ru_b1', 'debit', 100, 'failed');
    await tx(h.db.pool, 'ru_b2:debit', 'ru_b2', 'debit', 100, 'pending');
    assert.equal((await set()).n ?? '0', '0');
    await h.db.pool.query(
      `UPDATE wallet_transactions SET status = 'success' WHERE transaction_id = 'ru_b2:debit'`,
    );
    assert.deepEqual(await set(), { n: '1', hash: roundSetHash(['ru_b2']) });
    // A free round's credit alone bills it.
    await round(h.db.pool, 'ru_b3', 'ru_s1', 'ru_p1', S1, at);
    await tx(h.db.pool, 'ru_b3:credit', 'ru_b3', 'credit', 40, 'success');
    assert.deepEqual(await set(), { n: '2', hash: roundSetHash(['ru_b3', 'ru_b2']) });
    assert.deepEqual(await drift(), []);
    // Moved to another day: out of this day's set (XOR takes it out), into the other's.
    await h.db.pool.query(`UPDATE rounds SET created_at = '2026-04-13T08:00:00Z' WHERE round_id = 'ru_b2'`);
    assert.deepEqual(await set(), { n: '1', hash: roundSetHash(['ru_b3']) });
    assert.deepEqual(await drift(), []);
    // The recount is not fooled by one flipped bit of a word.
    await h.db.pool.query(
      `UPDATE report_daily SET set_x3 = set_x3 # 1 WHERE operator_id = $1 AND day = '2026-04-12' AND billed_rounds > 0`,
      [OP],
    );
    const found = await drift();
    assert.deepEqual(
      found.map((d) => [d.key, d.field]),
      [[`2026-04-12|${S1}|EUR`, 'round_set_hash']],
    );
    await h.db.pool.query(
      `UPDATE report_daily SET set_x3 = set_x3 # 1 WHERE operator_id = $1 AND day = '2026-04-12' AND billed_rounds > 0`,
      [OP],
    );
    assert.deepEqual(await drift(), []);
  });
});
