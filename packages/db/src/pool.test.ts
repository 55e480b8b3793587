import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool, type Pool, prepared, withTransaction } from './pool.js';
import { createTestDatabase, type TestDatabase } from './testing.js';

// Found by the reliability suite (PostgreSQL stopped under load): an API process died with an
// unhandled 'error' event when the server ended a connection that a transaction held between two
// statements. The transaction must fail, and the process and the pool must carry on.

let db: TestDatabase;
let pool: Pool;
before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, { max: 2 });
});
after(async () => {
  await pool.end();
  await db.drop();
});

test('a connection ended between two statements of a transaction fails it without an unhandled error', async () => {
  let crashed: unknown;
  const onUncaught = (err: unknown) => {
    crashed = err;
  };
  process.on('uncaughtException', onUncaught);
  try {
    await assert.rejects(
      withTransaction(pool, async (c) => {
        const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // Another session ends this one while no statement of it is running.
        await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        await new Promise((r) => setTimeout(r, 300));
        await c.query('SELECT 1');
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(crashed, undefined, `an unhandled error escaped: ${String(crashed)}`);
    // The broken client was not pooled again: the next transactions work.
    for (let i = 0; i < 3; i++) {
      const n = await withTransaction(
        pool,
        async (c) => (await c.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n,
      );
      assert.equal(n, 1);
    }
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});

test('a snapshot transaction sees one snapshot and writes nothing', async () => {
  await db.pool.query('CREATE TABLE snapshot_probe (n int)');
  const count = async (c: { query: Pool['query'] }) =>
    (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM snapshot_probe')).rows[0]!.n;
  const seen = await withTransaction(
    pool,
    async (c) => {
      const first = await count(c);
      // Committed by another session after the snapshot was taken: not seen.
      await db.pool.query('INSERT INTO snapshot_probe VALUES (1)');
      return [first, await count(c)];
    },
    { snapshot: true },
  );
  assert.deepEqual(seen, [0, 0]);
  await assert.rejects(
    withTransaction(pool, (c) => c.query('INSERT INTO snapshot_probe VALUES (2)'), { snapshot: true }),
    /read-only transaction/,
  );
  assert.equal(await count(pool), 1);
});

test('prepared: one name per text, a different name for a different text; each connection prepares it once', async () => {
  const a = prepared('SELECT $1::int + 1 AS n', [1]);
  assert.equal(prepared('SELECT $1::int + 1 AS n', [2]).name, a.name);
  assert.notEqual(prepared('SELECT $1::int + 2 AS n', [1]).name, a.name);
  assert.match(a.name ?? '', /^opi_[0-9a-f]{20}$/);
  const one = createPool(db.url, { max: 1 });
  try {
    for (let i = 0; i < 5; i++) {
      const { rows } = await one.query<{ n: number }>(prepared('SELECT $1::int + 1 AS n', [i]));
      assert.equal(rows[0]!.n, i + 1);
    }
    // The single connection holds the statement once, under its name, with its text.
    const { rows } = await one.query<{ name: string; statement: string }>(
      'SELECT name, statement FROM pg_prepared_statements',
    );
    assert.deepEqual(
      rows.map((r) => [r.name, r.statement]),
      [[a.name, 'SELECT $1::int + 1 AS n']],
    );
  } finally {
    await one.end();
  }
});
