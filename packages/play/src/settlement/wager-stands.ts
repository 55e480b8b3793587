/*
 * "No last look" (issue 34, docs/architecture.md "Security model"): nothing of a round's result
 * (the reels, the win, a jackpot hit, a prize-drop award, a native stage's result, the crash
 * point) is readable through any read of the platform until the round's wager stands, so that a
 * wallet holding a debit, or a player who could still empty the balance before a retried debit,
 * cannot decide the wager knowing its result.
 *
 * The wager of a round stands when its debit is applied: the journal's row of the round's debit
 * (`<round_id>:debit`, transactionIdsFor: every family, every round) has status `success`. A free
 * round has no debit (the operator's campaign paid its stake; nothing of the player's can be
 * refused): its wager stands from the start. A round whose debit was refused, or cancelled before
 * it was applied, never stands: its result is never shown (nothing was staked, so nothing was
 * played; its round shows no jackpot win), except that the audit lists its jackpot hit as
 * `forfeited` (`hitShownSql`): by then the refusal is recorded and nothing is left to decide. A
 * debit once applied stays applied in the journal, so a rolled-back or cancelled round whose debit
 * had stood keeps showing what was played.
 *
 * One rule, used by every read: the SQL predicates below (a primary-key lookup of the journal
 * per row read) and `wagerStands` for a row already loaded.
 */

/** The journal id of a round's debit (workflows' transactionIdsFor, as SQL on a round id expression). */
const debitId = (roundIdSql: string) => `(${roundIdSql}) || ':debit'`;

/**
 * SQL: the debit of the round whose id is `roundIdSql` is applied. For reads of rows that name a
 * round but are not one (jackpot hits: always of a paid round, so always with a debit).
 */
export function debitAppliedSql(roundIdSql: string): string {
  return `EXISTS (SELECT 1 FROM wallet_transactions wager_debit
                   WHERE wager_debit.transaction_id = ${debitId(roundIdSql)} AND wager_debit.status = 'success')`;
}

/**
 * SQL: a jackpot hit row `alias` (jackpot_hits) may be shown: its round's debit applied, or the hit
 * no longer pending (`forfeited`: its wager was refused, rolled back or cancelled, recorded in the
 * same statement as the round's end, so nothing is left to decide; `paid`: after the debit).
 */
export function hitShownSql(alias: string): string {
  return `(${alias}.status <> 'pending' OR ${debitAppliedSql(`${alias}.round_id`)})`;
}

/**
 * SQL: the wager of the round row `alias` (a `rounds` alias, or its table name) stands: a free
 * round, or its debit applied.
 */
export function wagerStandsSql(alias: string): string {
  return `(${alias}.free_round_campaign_id IS NOT NULL OR ${debitAppliedSql(`${alias}.round_id`)})`;
}

/**
 * SQL: a promotional payout row `alias` (promo_payouts) may be shown: a tournament's prize
 * (written by the freeze from settled rounds only), or a prize-drop award whose round's wager
 * stands (the award is written with its round, before the debit: migration 22). The round is
 * found by `rounds_prize_drop_payout` (migration 29).
 */
export function payoutShownSql(alias: string): string {
  return `(${alias}.promo_type <> 'prize_drop' OR EXISTS (
            SELECT 1 FROM rounds award_round
             WHERE award_round.prize_drop_payout_id = ${alias}.payout_id
               AND ${wagerStandsSql('award_round')}))`;
}

/** The same rule for a round already read: free, or its debit's journal status `success`. */
export function wagerStands(round: { freeRound: boolean; debitStatus: string | null | undefined }): boolean {
  return round.freeRound || round.debitStatus === 'success';
}

/**
 * A round's settlement intent without what the round's result put into it (a single-step round's
 * win, its jackpot wins, its prize-drop award), for reads that show the intent of a round whose
 * wager does not stand yet. The stake, the transaction ids and the rest are no result.
 */
export function intentWithoutResult<T extends Record<string, unknown>>(intent: T): T {
  const { prizeDrop: _drop, ...rest } = intent as Record<string, unknown>;
  const out: Record<string, unknown> = { ...rest };
  if ('winMinor' in out) out.winMinor = null;
  const jackpot = out.jackpot as Record<string, unknown> | undefined;
  if (jackpot && typeof jackpot === 'object' && 'wins' in jackpot) {
    const { wins: _wins, ...j } = jackpot;
    out.jackpot = j;
  }
  return out as T;
}
