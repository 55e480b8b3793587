import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { MIGRATIONS_DIR } from './migrate.js';
import { createTestDatabase, type TestDatabase } from './testing.js';

/*
 * Migration 1700000000042 (the invoices' round sets kept per day) can be rolled back to 41's
 * rollup and applied again on a database with rounds: its Down restores migration 41's functions
 * (a round settled after the rollback is counted by them), and the Up's backfill rebuilds every
 * day's set from the rounds.
 */
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db?.drop();
});

async function migrateOne(direction: 'up' | 'down') {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      direction,
      count: 1,
      migrationsTable: 'pgmigrations',
      singleTransaction: true,
      log: () => {},
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
  } finally {
    await client.end();
  }
}

const set = async () =>
  (
    await db.pool.query<{ n: string | null; hash: string | null }>(
      `SELECT sum(billed_rounds)::text AS n,
              ${[1, 2, 3, 4].map((i) => `lpad(to_hex(bit_xor(set_x${i})), 16, '0')`).join(' || ')} AS hash
         FROM report_daily WHERE operator_id = 'op_m42'`,
    )
  ).rows[0]!;

async function settledRound(id: string) {
  const c = await db.pool.connect();
  try {
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
         bet_minor, win_minor, intent, created_at)
       VALUES ($1, 'op_m42', 's_m42', 'p_m42', 'sym_m42', 'prov_a', 'EUR', 'completed', 100, 0, '{}', '2026-05-02T10:00:00Z')`,
      [id],
    );
    await c.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, request_body, request_hash, status)
       VALUES ($1 || ':debit', 'op_m42', 's_m42', $1, 'x', 'sym_m42', 'debit', 100, 'EUR', '{}', repeat('a', 64), 'success')`,
      [id],
    );
    await c.query('COMMIT');
  } finally {
    c.release();
  }
}

test('migration 42 rolls back to 41 and forward again; every day’s set is rebuilt from the rounds', async () => {
  await db.pool.query(`INSERT INTO operators (operator_id, name) VALUES ('op_m42', 'M42')`);
  await db.pool.query(
    `INSERT INTO games (symbol, slug, title, provider_id, provider, integration_mode, installed_version)
     VALUES ('sym_m42', 'sym-m42', 'M42', 'prov_a', 'A', 'operator-wallet', '1.0.0')`,
  );
  await db.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ('p_m42', 'op_m42', 'p_m42', 'global')`,
  );
  await db.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
     VALUES ('s_m42', 'op_m42', 'p_m42', 'sym_m42', 'prov_a', 'EUR')`,
  );
  await settledRound('r_m42_a');
  const sha = (await db.pool.query<{ h: string }>(`SELECT encode(sha256('r_m42_a'::bytea), 'hex') AS h`))
    .rows[0]!.h;
  assert.deepEqual(await set(), { n: '1', hash: sha });

  await migrateOne('down');
  const cols = await db.pool.query(
    `SELECT 1 FROM information_schema.columns WHERE table_name = 'report_daily' AND column_name = 'set_x1'`,
  );
  assert.equal(cols.rowCount, 0, 'the Down drops the set columns');
  // Migration 41's functions count a round settled now.
  await settledRound('r_m42_b');
  const rounds = await db.pool.query<{ n: string }>(
    `SELECT sum(rounds)::text AS n FROM report_daily WHERE operator_id = 'op_m42'`,
  );
  assert.equal(rounds.rows[0]!.n, '2');

  await migrateOne('up');
  const both = (await db.pool.query<{ h: string }>(`SELECT encode(sha256('r_m42_b'::bytea), 'hex') AS h`))
    .rows[0]!;
  const xor = (a: string, b: string) =>
    Buffer.from(Buffer.from(a, 'hex').map((x, i) => x ^ Buffer.from(b, 'hex')[i]!)).toString('hex');
  assert.deepEqual(await set(), { n: '2', hash: xor(sha, both.h) });
});
