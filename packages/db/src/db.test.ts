import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { migrate } from './migrate.js';
import { withTransaction } from './pool.js';
import { createTestDatabase, type TestDatabase } from './testing.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `INSERT INTO operators (operator_id, name) VALUES ('op_a', 'A');
     INSERT INTO games (symbol, slug, title, provider_id, provider, integration_mode, installed_version)
       VALUES ('g1', 'g-one', 'Game One', 'prov_a', 'Provider A', 'operator-wallet', '1.0.0')`,
  );
});
after(() => db.drop());

const body = (id: string, amount: number) =>
  JSON.stringify({ transaction_id: id, transaction_type: 'debit', amount_minor: amount });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function journal(id: string, amount: number | bigint, type = 'debit', original: string | null = null) {
  const b = body(id, Number(amount));
  await db.pool.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, request_body, request_hash, original_transaction_id)
     VALUES ($1, 'op_a', 's1', 'r1', 'p1', 'g1', $2, $3, 'EUR', $4, $5, $6)`,
    [id, type, amount, b, sha(b), original],
  );
}

describe('migrations', () => {
  test('are already applied to the template and re-running applies nothing', async () => {
    assert.deepEqual(await migrate(db.url), []);
    const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY id');
    assert.ok(rows.length >= 1);
    assert.equal(rows[0]!.name, '1700000000001_initial');
  });
  test('seed the provider switches with prov_b off by default', async () => {
    const { rows } = await db.pool.query(
      'SELECT provider_id, enabled FROM provider_switches ORDER BY provider_id',
    );
    assert.deepEqual(
      rows.map((r) => [r.provider_id, r.enabled]),
      [
        ['prov_a', true],
        ['prov_b', false],
        ['prov_c', true],
        ['prov_d', true],
      ],
    );
  });
});

describe('money columns', () => {
  test('bigint minor units round-trip exactly beyond 2^53', async () => {
    const big = 2n ** 62n + 1n;
    await journal('tx-big', big);
    const { rows } = await db.pool.query(
      'SELECT amount_minor FROM wallet_transactions WHERE transaction_id = $1',
      ['tx-big'],
    );
    assert.equal(rows[0].amount_minor, big);
    assert.equal(typeof rows[0].amount_minor, 'bigint');
  });
  test('no money column is a floating type', async () => {
    const { rows } = await db.pool.query(
      `SELECT table_name, column_name, data_type, udt_name FROM information_schema.columns
       WHERE table_schema = 'public' AND (column_name LIKE '%minor%' OR column_name LIKE '%amount%')`,
    );
    assert.ok(rows.length >= 5);
    // bigint, or an array of bigint (a stake ladder's steps).
    for (const r of rows)
      assert.ok(
        r.data_type === 'bigint' || (r.data_type === 'ARRAY' && r.udt_name === '_int8'),
        `${r.table_name}.${r.column_name}: ${r.data_type} ${r.udt_name}`,
      );
  });
  test('negative amounts are refused', async () => {
    await assert.rejects(journal('tx-neg', -1), /check constraint/);
  });
});

describe('the wallet journal', () => {
  test('a transaction_id is unique', async () => {
    await journal('tx-1', 150);
    await assert.rejects(journal('tx-1', 150), /duplicate key/);
  });
  test('request_hash and body never change; status leaves pending once', async () => {
    await journal('tx-2', 200);
    await assert.rejects(
      db.pool.query(`UPDATE wallet_transactions SET request_hash = $1 WHERE transaction_id = 'tx-2'`, [
        sha('x'),
      ]),
      /immutable/,
    );
    await assert.rejects(
      db.pool.query(`UPDATE wallet_transactions SET amount_minor = 1 WHERE transaction_id = 'tx-2'`),
      /immutable/,
    );
    await db.pool.query(
      `UPDATE wallet_transactions SET status = 'success', attempts = attempts + 1 WHERE transaction_id = 'tx-2'`,
    );
    await assert.rejects(
      db.pool.query(`UPDATE wallet_transactions SET status = 'failed' WHERE transaction_id = 'tx-2'`),
      /already reached success/,
    );
    await assert.rejects(
      db.pool.query(`DELETE FROM wallet_transactions WHERE transaction_id = 'tx-2'`),
      /append-only/,
    );
  });
  test('a request_hash must be 64 lower-case hex', async () => {
    await assert.rejects(
      db.pool.query(
        `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
           transaction_type, amount_minor, currency, request_body, request_hash)
         VALUES ('tx-h', 'op_a', 's', 'r', 'p', 'g1', 'debit', 1, 'EUR', '{}', $1)`,
        [sha('{}').toUpperCase()],
      ),
      /check constraint/,
    );
  });
  test('a rollback must name the transaction it reverses', async () => {
    await assert.rejects(journal('tx-rb-bad', 150, 'rollback', null), /check constraint/);
    await journal('tx-3', 150);
    await journal('tx-rb', 150, 'rollback', 'tx-3');
  });
});

describe('withTransaction', () => {
  test('rolls everything back when the function throws', async () => {
    await assert.rejects(
      withTransaction(db.pool, async (c) => {
        await c.query(`INSERT INTO operators (operator_id, name) VALUES ('op_tx', 'T')`);
        throw new Error('boom');
      }),
      /boom/,
    );
    const { rowCount } = await db.pool.query(`SELECT 1 FROM operators WHERE operator_id = 'op_tx'`);
    assert.equal(rowCount, 0);
  });
});
