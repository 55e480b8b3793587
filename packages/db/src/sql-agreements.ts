/*
 * What SQL written in several places must agree on, named once (issue 36): the two-key advisory
 * lock classes and a tournament leaderboard's order. A migration keeps its literal (migrations are
 * never edited); sql-agreements.test.ts reads the migrations and fails when they disagree.
 */

/**
 * The classes of the two-key advisory locks (`pg_advisory_xact_lock(class, key)`). Two-key locks
 * are their own key space beside the one-bigint ones (node-pg-migrate, the crash demo, the
 * `hashtext(...)` keys of the admin APIs), so a class is unique among these only.
 */
export const ADVISORY_LOCK_CLASS = {
  /**
   * A session's presence rows (balance refresh, migration 3's table): `(3, hashtext(session_id))`
   * serialises the stream opens and heartbeat trims of one session across processes.
   */
  presence: 3,
  /**
   * A tournament's scoring and freeze: `(21, hashtext(tournament_id))`, held shared by migration
   * 21's scoring trigger (rounds_tournament_score) for every round it counts, exclusive by the
   * tournament workflow's freeze, so a freeze sees every round counted before the end committed.
   */
  tournamentScoring: 21,
  /** The rank snapshots' rebuild (migration 31's tables): `(31, 1)`, held at session level. */
  rankSnapshotRebuild: 31,
} as const;

/**
 * A tournament leaderboard's order: the higher score first; ties to the earlier score, then the
 * lower player id, then the operator (byte order, COLLATE "C", whatever the database's locale).
 * The live top, the rank snapshots and their board index, and the freeze's standings all rank by
 * it. `alias` qualifies the columns (`s` gives `s.score DESC, ...`); none, as an index names them.
 */
export function leaderboardOrderSql(alias?: string): string {
  const c = alias ? `${alias}.` : '';
  return `${c}score DESC, ${c}score_reached_at, ${c}external_player_id COLLATE "C", ${c}operator_id COLLATE "C"`;
}
