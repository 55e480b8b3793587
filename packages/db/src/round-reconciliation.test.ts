import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { rebuildRoundReconciliation } from './round-reconciliation.js';
import { createTestDatabase, type TestDatabase } from './testing.js';

// round_reconciliation (migration 1700000000011_round_reconciliation): both sides of each round's
// reconciliation, kept by the database in the same transaction as every write to the round or its
// journal. Each case writes the way the settlement activities do (insert pending, then record an
// outcome) and checks the round's row against figures worked out by hand.

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `INSERT INTO operators (operator_id, name) VALUES ('op_t', 'T'), ('op_u', 'U');
     INSERT INTO games (symbol, slug, title, provider_id, provider, integration_mode, installed_version)
       VALUES ('g1', 'g-one', 'Game One', 'prov_a', 'Provider A', 'operator-wallet', '1.0.0');
     INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ('p1', 'op_t', 'x1', 'global');
     INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
       VALUES ('s1', 'op_t', 'p1', 'g1', 'prov_a', 'EUR')`,
  );
});
after(() => db.drop());

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function round(id: string, currency = 'EUR', q: Pick<TestDatabase['pool'], 'query'> = db.pool) {
  await q.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, intent)
     VALUES ($1, 'op_t', 's1', 'p1', 'g1', 'prov_a', $2, '{}')`,
    [id, currency],
  );
}

interface Row {
  id: string;
  round: string;
  type: 'balance' | 'debit' | 'credit' | 'cancel' | 'rollback';
  amount: number;
  currency?: string;
  original?: string;
  operator?: string;
  status?: 'pending' | 'success';
}

async function journal(r: Row, q: Pick<TestDatabase['pool'], 'query'> = db.pool) {
  const body = JSON.stringify({ transaction_id: r.id, amount_minor: r.amount });
  await q.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, request_body, request_hash, original_transaction_id, status)
     VALUES ($1, $2, 's1', $3, 'x1', 'g1', $4, $5, $6, $7, $8, $9, $10)`,
    [
      r.id,
      r.operator ?? 'op_t',
      r.round,
      r.type,
      r.amount,
      r.currency ?? 'EUR',
      body,
      sha(body),
      r.original ?? null,
      r.status ?? 'pending',
    ],
  );
}

async function outcome(
  id: string,
  status: 'success' | 'failed',
  q: Pick<TestDatabase['pool'], 'query'> = db.pool,
) {
  await q.query(
    `UPDATE wallet_transactions SET status = $2, completed_at = now() WHERE transaction_id = $1`,
    [id, status],
  );
}

async function row(id: string) {
  const { rows } = await db.pool.query<{
    game_delta_minor: bigint;
    wallet_delta_minor: bigint;
    journal_rows: number;
    pending_rows: number;
    foreign_rows: number;
    differs: boolean;
  }>(
    `SELECT game_delta_minor, wallet_delta_minor, journal_rows, pending_rows, foreign_rows, differs
     FROM round_reconciliation WHERE round_id = $1`,
    [id],
  );
  return rows[0];
}

/** The wallet side of a round. */
async function totals(id: string) {
  const t = (await row(id))!;
  return {
    wallet: BigInt(t.wallet_delta_minor),
    rows: t.journal_rows,
    pending: t.pending_rows,
    foreign: t.foreign_rows,
  };
}

async function setRound(
  id: string,
  status: string,
  bet: number,
  win: number,
  q: Pick<TestDatabase['pool'], 'query'> = db.pool,
) {
  await q.query(`UPDATE rounds SET status = $2, bet_minor = $3, win_minor = $4 WHERE round_id = $1`, [
    id,
    status,
    bet,
    win,
  ]);
}

describe('round_reconciliation', () => {
  test('a new round has its row, with nothing on either side', async () => {
    await round('r_new');
    assert.deepEqual(await totals('r_new'), { wallet: 0n, rows: 0, pending: 0, foreign: 0 });
    assert.deepEqual(
      [BigInt((await row('r_new'))!.game_delta_minor), (await row('r_new'))!.differs],
      [0n, false],
    );
  });

  test('the history side follows the round: win minus bet, nothing for a wager that never stood', async () => {
    await round('r_hist');
    const side = async () => {
      const r = (await row('r_hist'))!;
      return [BigInt(r.game_delta_minor), r.differs];
    };
    await setRound('r_hist', 'settling', 100, 0);
    assert.deepEqual(await side(), [-100n, true], 'a bet the wallet has not taken differs');
    await journal({ id: 'r_hist:debit', round: 'r_hist', type: 'debit', amount: 100, status: 'success' });
    assert.deepEqual(await side(), [-100n, false]);
    await setRound('r_hist', 'completed', 100, 300);
    assert.deepEqual(await side(), [200n, true], 'a win the wallet has not paid differs');
    await journal({ id: 'r_hist:credit', round: 'r_hist', type: 'credit', amount: 300, status: 'success' });
    assert.deepEqual(await side(), [200n, false]);
    for (const status of ['rejected', 'cancelled', 'rolled_back']) {
      await setRound('r_hist', status, 100, 300);
      assert.equal((await side())[0], 0n, status);
    }
  });

  test('a deleted round takes its row with it', async () => {
    await round('r_gone');
    await db.pool.query(`DELETE FROM rounds WHERE round_id = 'r_gone'`);
    assert.equal(await row('r_gone'), undefined);
  });

  test('a pending debit counts as pending, not as money; its success takes the stake; a credit pays', async () => {
    await round('r_won');
    await journal({ id: 'r_won:debit', round: 'r_won', type: 'debit', amount: 100 });
    assert.deepEqual(await totals('r_won'), { wallet: 0n, rows: 1, pending: 1, foreign: 0 });
    await outcome('r_won:debit', 'success');
    assert.deepEqual(await totals('r_won'), { wallet: -100n, rows: 1, pending: 0, foreign: 0 });
    await journal({ id: 'r_won:credit', round: 'r_won', type: 'credit', amount: 250 });
    await outcome('r_won:credit', 'success');
    assert.deepEqual(await totals('r_won'), { wallet: 150n, rows: 2, pending: 0, foreign: 0 });
  });

  test('attempt counts and error notes move nothing; balance reads are not counted', async () => {
    await round('r_notes');
    await journal({ id: 'r_notes:debit', round: 'r_notes', type: 'debit', amount: 40 });
    await db.pool.query(
      `UPDATE wallet_transactions SET attempts = attempts + 1, last_error = 'timeout' WHERE transaction_id = 'r_notes:debit'`,
    );
    await journal({ id: 'r_notes:balance', round: 'r_notes', type: 'balance', amount: 0 });
    await outcome('r_notes:balance', 'success');
    assert.deepEqual(await totals('r_notes'), { wallet: 0n, rows: 1, pending: 1, foreign: 0 });
  });

  test('a rejected debit takes nothing', async () => {
    await round('r_rej');
    await journal({ id: 'r_rej:debit', round: 'r_rej', type: 'debit', amount: 70 });
    await outcome('r_rej:debit', 'failed');
    assert.deepEqual(await totals('r_rej'), { wallet: 0n, rows: 1, pending: 0, foreign: 0 });
  });

  test('a rollback gives back what its successful debit took; of an uncertain debit, nothing', async () => {
    await round('r_rb');
    await journal({ id: 'r_rb:debit', round: 'r_rb', type: 'debit', amount: 90 });
    await outcome('r_rb:debit', 'success');
    await journal({
      id: 'r_rb:rollback',
      round: 'r_rb',
      type: 'rollback',
      amount: 90,
      original: 'r_rb:debit',
    });
    assert.deepEqual(await totals('r_rb'), { wallet: -90n, rows: 2, pending: 1, foreign: 0 });
    await outcome('r_rb:rollback', 'success');
    assert.deepEqual(await totals('r_rb'), { wallet: 0n, rows: 2, pending: 0, foreign: 0 });

    // The debit's outcome never came back: the rollback's success nets to zero, and the debit is
    // then closed as failed (what recordOutcome does in the same statement).
    await round('r_rb2');
    await journal({ id: 'r_rb2:debit', round: 'r_rb2', type: 'debit', amount: 60 });
    await journal({
      id: 'r_rb2:rollback',
      round: 'r_rb2',
      type: 'rollback',
      amount: 60,
      original: 'r_rb2:debit',
    });
    await db.pool.query(
      `WITH tx AS (UPDATE wallet_transactions SET status = 'success' WHERE transaction_id = 'r_rb2:rollback' RETURNING 1),
            rb AS (UPDATE wallet_transactions SET status = 'failed' WHERE transaction_id = 'r_rb2:debit' RETURNING 1)
       SELECT (SELECT count(*) FROM tx), (SELECT count(*) FROM rb)`,
    );
    assert.deepEqual(await totals('r_rb2'), { wallet: 0n, rows: 2, pending: 0, foreign: 0 });
  });

  test('a reversal recorded before its debit succeeds follows the debit when it does', async () => {
    await round('r_late');
    await journal({ id: 'r_late:debit', round: 'r_late', type: 'debit', amount: 30 });
    await journal({
      id: 'r_late:cancel',
      round: 'r_late',
      type: 'cancel',
      amount: 30,
      original: 'r_late:debit',
    });
    await outcome('r_late:cancel', 'success');
    assert.deepEqual(await totals('r_late'), { wallet: 0n, rows: 2, pending: 1, foreign: 0 });
    await outcome('r_late:debit', 'success');
    assert.deepEqual(await totals('r_late'), { wallet: 0n, rows: 2, pending: 0, foreign: 0 });
  });

  test('a row in another currency is counted as foreign, never summed', async () => {
    await round('r_fx');
    await journal({ id: 'r_fx:debit', round: 'r_fx', type: 'debit', amount: 10 });
    await outcome('r_fx:debit', 'success');
    await journal({ id: 'r_fx:credit', round: 'r_fx', type: 'credit', amount: 500, currency: 'USD' });
    await outcome('r_fx:credit', 'success');
    assert.deepEqual(await totals('r_fx'), { wallet: -10n, rows: 2, pending: 0, foreign: 1 });
  });

  test("another operator's row naming the round is not the round's", async () => {
    await round('r_other');
    await journal({ id: 'r_other:debit', round: 'r_other', type: 'debit', amount: 5, operator: 'op_u' });
    await outcome('r_other:debit', 'success');
    assert.deepEqual(await totals('r_other'), { wallet: 0n, rows: 0, pending: 0, foreign: 0 });
  });

  test('journal rows written before their round are counted when the round arrives', async () => {
    await journal({ id: 'r_early:debit', round: 'r_early', type: 'debit', amount: 25 });
    await outcome('r_early:debit', 'success');
    await round('r_early');
    assert.deepEqual(await totals('r_early'), { wallet: -25n, rows: 1, pending: 0, foreign: 0 });
  });

  test('many rounds in one statement', async () => {
    await db.pool.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, intent)
       SELECT 'r_bulk_' || i, 'op_t', 's1', 'p1', 'g1', 'prov_a', 'EUR', '{}' FROM generate_series(1, 200) i`,
    );
    await db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, status, request_body, request_hash)
       SELECT 'r_bulk_' || i || ':' || t, 'op_t', 's1', 'r_bulk_' || i, 'x1', 'g1', t, i, 'EUR',
              CASE WHEN i % 10 = 0 AND t = 'credit' THEN 'pending' ELSE 'success' END, '{}', repeat('a', 64)
       FROM generate_series(1, 200) i CROSS JOIN (VALUES ('debit'), ('credit')) v(t)`,
    );
    const { rows } = await db.pool.query<{ w: string; n: string; p: string }>(
      `SELECT sum(wallet_delta_minor)::text AS w, sum(journal_rows)::text AS n, sum(pending_rows)::text AS p
       FROM round_reconciliation WHERE round_id LIKE 'r\\_bulk\\_%'`,
    );
    // Every round's credit equals its debit, except the 20 pending credits (i = 10, 20, ..., 200).
    const pendingCredits = Array.from({ length: 20 }, (_, k) => (k + 1) * 10).reduce((a, b) => a + b, 0);
    assert.deepEqual(rows[0], { w: String(-pendingCredits), n: '400', p: '20' });
  });

  test('two transactions writing one round at once: the later sees the earlier, neither is lost', async () => {
    await round('r_race');
    const a = await db.pool.connect();
    const b = await db.pool.connect();
    try {
      await a.query('BEGIN');
      await journal({ id: 'r_race:debit', round: 'r_race', type: 'debit', amount: 100 }, a);
      await outcome('r_race:debit', 'success', a);
      await b.query('BEGIN');
      // b's one statement (its only journal write) runs while a is uncommitted: its trigger must
      // wait for a's lock on the round and only then read the journal, with a's rows committed.
      const bDone = (async () => {
        await journal(
          { id: 'r_race:credit', round: 'r_race', type: 'credit', amount: 40, status: 'success' },
          b,
        );
        await b.query('COMMIT');
      })();
      await new Promise((r) => setTimeout(r, 100));
      await a.query('COMMIT');
      await bDone;
    } finally {
      a.release();
      b.release();
    }
    assert.deepEqual(await totals('r_race'), { wallet: -60n, rows: 2, pending: 0, foreign: 0 });
  });

  test('one transaction writing a round many times recounts it once, at commit, seeing every write', async () => {
    // What a spin's transactions do, all in one here: the round and its debit, the debit's outcome
    // and the credit's pending row, the credit's outcome and the round's status. The row is
    // written once (migration 27): the triggers are deferred to commit, and every one after the
    // first finds the row this transaction wrote. SET CONSTRAINTS ... IMMEDIATE fires them early,
    // so that the table's counters can be read before the transaction ends (they hold this
    // backend's writes not yet reported, so the figure is the difference from the start).
    const c = await db.pool.connect();
    const writes = async () => {
      const { rows } = await c.query<{ n: string }>(
        `SELECT (n_tup_ins + n_tup_upd)::text AS n FROM pg_stat_xact_user_tables WHERE relname = 'round_reconciliation'`,
      );
      return Number(rows[0]!.n);
    };
    try {
      await c.query('BEGIN');
      const start = await writes();
      await round('r_once', 'EUR', c);
      await journal({ id: 'r_once:debit', round: 'r_once', type: 'debit', amount: 100 }, c);
      await outcome('r_once:debit', 'success', c);
      await journal({ id: 'r_once:credit', round: 'r_once', type: 'credit', amount: 30 }, c);
      await outcome('r_once:credit', 'success', c);
      await setRound('r_once', 'completed', 100, 30, c);
      const { rows: before } = await c.query(`SELECT 1 FROM round_reconciliation WHERE round_id = 'r_once'`);
      assert.equal(before.length, 0, 'nothing is counted before commit');
      await c.query('SET CONSTRAINTS ALL IMMEDIATE');
      assert.equal((await writes()) - start, 1, 'one write for six changes of the round');
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK');
      throw err;
    } finally {
      c.release();
    }
    assert.deepEqual(await totals('r_once'), { wallet: -70n, rows: 2, pending: 0, foreign: 0 });
    const r = (await row('r_once'))!;
    assert.deepEqual([BigInt(r.game_delta_minor), r.differs], [-70n, false]);
  });

  test('a later transaction writing the round recounts it again', async () => {
    await round('r_twice');
    await journal({ id: 'r_twice:debit', round: 'r_twice', type: 'debit', amount: 20 });
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await outcome('r_twice:debit', 'success', c);
      await setRound('r_twice', 'completed', 20, 0, c);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    assert.deepEqual(await totals('r_twice'), { wallet: -20n, rows: 1, pending: 0, foreign: 0 });
    assert.equal((await row('r_twice'))!.differs, false);
  });

  test("a round's jackpot wins are part of its history side", async () => {
    await round('r_jp');
    await setRound('r_jp', 'completed', 100, 0);
    await db.pool.query(`UPDATE rounds SET jackpot_win_minor = 5000 WHERE round_id = 'r_jp'`);
    assert.equal(BigInt((await row('r_jp'))!.game_delta_minor), 4900n);
  });

  test('a rolled-back transaction leaves the row as it was', async () => {
    await round('r_abort');
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await journal({ id: 'r_abort:debit', round: 'r_abort', type: 'debit', amount: 100 }, c);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    assert.deepEqual(await totals('r_abort'), { wallet: 0n, rows: 0, pending: 0, foreign: 0 });
  });

  test('rows skipped by a load with triggers off are rebuilt from rounds and the journal', async () => {
    const c = await db.pool.connect();
    try {
      // What pg_restore --disable-triggers does: no trigger fires for these writes.
      await c.query(`SET session_replication_role = replica`);
      await round('r_loaded', 'EUR', c);
      await c.query(
        `UPDATE rounds SET status = 'completed', bet_minor = 100, win_minor = 40 WHERE round_id = 'r_loaded'`,
      );
      await journal(
        { id: 'r_loaded:debit', round: 'r_loaded', type: 'debit', amount: 100, status: 'success' },
        c,
      );
      await journal({ id: 'r_loaded:credit', round: 'r_loaded', type: 'credit', amount: 40 }, c);
      await c.query(`UPDATE round_reconciliation SET wallet_delta_minor = 999 WHERE round_id = 'r_won'`);
    } finally {
      await c.query(`RESET session_replication_role`);
      c.release();
    }
    assert.equal(await row('r_loaded'), undefined);
    await rebuildRoundReconciliation(db.pool);
    assert.deepEqual(await totals('r_loaded'), { wallet: -100n, rows: 2, pending: 1, foreign: 0 });
    assert.equal(BigInt((await row('r_loaded'))!.game_delta_minor), -60n);
    assert.deepEqual(
      await totals('r_won'),
      { wallet: 150n, rows: 2, pending: 0, foreign: 0 },
      'a wrong row is put right',
    );
  });
});
