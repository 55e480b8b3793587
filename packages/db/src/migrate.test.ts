import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { withDatabase } from './admin.js';
import { MIGRATIONS_DIR, migrate } from './migrate.js';
import { createTestDatabase, testServerUrl } from './testing.js';

// A release's migrations run while the previous release serves (issue 35's upgrade drill found a
// deadlock between them and live spins): the migration gives way, never a player's transaction,
// and several processes may migrate at once.
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function emptyDatabase(): Promise<string> {
  const name = `t_mig_${Math.random().toString(16).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  return withDatabase(testServerUrl(), name);
}

test('several processes migrating at once: one applies every migration, the others wait and find nothing to do', async () => {
  const url = await emptyDatabase();
  const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
  const all = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).length;
  assert.deepEqual(
    results.map((r) => r.length).sort((a, b) => a - b),
    [0, 0, all],
  );
});

test('a migration that meets live traffic in a lock cycle gives way and is retried; the live transaction commits', async () => {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  await db.pool.query(
    'CREATE TABLE mig_a (id int PRIMARY KEY, n int); CREATE TABLE mig_b (id int PRIMARY KEY)',
  );
  await db.pool.query('INSERT INTO mig_a VALUES (1, 0); INSERT INTO mig_b VALUES (1)');
  // Every migration of the release, and one more that takes mig_b, then needs mig_a.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'opi-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  for (const f of await readdir(MIGRATIONS_DIR))
    await symlink(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  await writeFile(
    path.join(dir, '9999999999999_lock_cycle.sql'),
    'LOCK TABLE mig_b IN ACCESS EXCLUSIVE MODE;\nALTER TABLE mig_a ADD COLUMN note text;\n',
  );

  // The live transaction (as a spin: a row lock on one table, then a read of another).
  const live = new pg.Client({ connectionString: db.url });
  await live.connect();
  cleanups.push(() => live.end());
  await live.query('BEGIN');
  await live.query('UPDATE mig_a SET n = n + 1 WHERE id = 1');
  const logs: string[] = [];
  const migrating = migrate(db.url, (m) => logs.push(m), { dir });
  // Once the migration holds mig_b and waits for mig_a, the live transaction reads mig_b.
  for (let i = 0; i < 400; i++) {
    const { rows } = await db.pool.query(
      `SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'mig_a' AND NOT l.granted`,
    );
    if (rows.length) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const { rows } = await live.query('SELECT id FROM mig_b');
  assert.deepEqual(rows, [{ id: 1 }]);
  await live.query('COMMIT');
  assert.deepEqual(await migrating, ['9999999999999_lock_cycle']);
  assert.ok(
    logs.some((l) => /gave way to live traffic \((40P01|55P03)/.test(l)),
    `the migration gave way: ${logs.join(' | ')}`,
  );
  const after = await db.pool.query('SELECT n, note FROM mig_a');
  assert.deepEqual(after.rows, [{ n: 1, note: null }]);
});
