import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { MIGRATIONS_DIR } from './migrate.js';
import { ADVISORY_LOCK_CLASS, leaderboardOrderSql } from './sql-agreements.js';

// The migrations keep their literals (a migration is never edited): these fail when the named
// exports the code takes and the migrations' SQL disagree.
const migration = (name: string) => readFile(path.join(MIGRATIONS_DIR, name), 'utf8');

test('the advisory lock classes are distinct', () => {
  const classes = Object.values(ADVISORY_LOCK_CLASS);
  assert.equal(new Set(classes).size, classes.length);
});

test("migration 21's scoring trigger takes the tournament scoring class the freeze takes", async () => {
  const sql = await migration('1700000000021_tournaments.sql');
  const taken = [...sql.matchAll(/pg_advisory_xact_lock_shared\((\d+), hashtext\(t\.tournament_id\)\)/g)];
  assert.equal(taken.length, 1);
  assert.equal(Number(taken[0]![1]), ADVISORY_LOCK_CLASS.tournamentScoring);
});

test("migration 31's board indexes are the leaderboard's order, and its rebuild lock the named class", async () => {
  const sql = await migration('1700000000031_tournament_rank_snapshots.sql');
  for (const slot of [0, 1]) {
    assert.ok(
      sql.includes(
        `CREATE INDEX tournament_rank_snapshot_${slot}_board ON tournament_rank_snapshot_${slot}\n  (tournament_id, currency, ${leaderboardOrderSql()});`,
      ),
      `slot ${slot}'s board index`,
    );
  }
  assert.ok(sql.includes(`pg_try_advisory_lock(${ADVISORY_LOCK_CLASS.rankSnapshotRebuild}, 1)`));
});

test('an alias qualifies every column of the order', () => {
  assert.equal(
    leaderboardOrderSql('s'),
    's.score DESC, s.score_reached_at, s.external_player_id COLLATE "C", s.operator_id COLLATE "C"',
  );
});
