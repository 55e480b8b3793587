import type { WireRecord } from '@opi/wallet-sandbox';
import { type Check, fmtList, type InvariantContext, type JournalRow, type WalletTx } from './checks.js';

/** A jackpot win's credit: `<round>:jackpot:<level>` (of `roundId`, when given). */
export function isJackpotCredit(transactionId: string, roundId?: string): boolean {
  const at = transactionId.indexOf(':jackpot:');
  return at > 0 && (roundId === undefined || transactionId.slice(0, at) === roundId);
}

/** A promotional payout's reference (migration 21): `pp_t_…` (tournament) or `pp_d_…` (prize drop). */
export function isPromoPayout(id: string): boolean {
  return /^pp_[td]_/.test(id);
}

/**
 * Issue 25's invariants over everything the run did (docs/jackpots-and-promotions.md):
 * jackpots (every pool's contributions are the rounds' to the micro; its wins are exactly the hits
 * not forfeited; a completed round's hits are paid once, by one credit of that amount, never a
 * hit of a round whose wager never stood), prize drops (awards never exceed the prizes; each award's
 * round completed and each award paid exactly once) and the tournament (its score is exactly the
 * settled wins of the window; once ended, every prize of the frozen standings paid exactly once).
 */
export async function promotionInvariants(
  ctx: InvariantContext,
  journal: JournalRow[],
  walletTx: WalletTx[],
  wire: WireRecord[],
): Promise<{ checks: Check[]; facts: string[] }> {
  const { stack, world } = ctx;
  const { jackpotId, dropId, tournamentId } = world.promotions;
  const checks: Check[] = [];
  const facts: string[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const operators = world.audited.map((o) => o.operatorId);
  const journalById = new Map(journal.map((j) => [j.transaction_id, j]));
  const appliedById = new Map<string, WalletTx[]>();
  for (const t of walletTx) {
    if (t.status !== 'success') continue;
    appliedById.set(t.transaction_id, [...(appliedById.get(t.transaction_id) ?? []), t]);
  }
  const sends = new Map<string, number>();
  for (const w of wire) {
    if (typeof w.transaction_id === 'string')
      sends.set(w.transaction_id, (sends.get(w.transaction_id) ?? 0) + 1);
  }
  /** Paid once: one success in the journal and one applied wallet transaction, of `amount`. */
  const paidOnce = (txId: string, amount: bigint): string | null => {
    const j = journalById.get(txId);
    if (j?.status !== 'success') return `${txId}: journal ${j?.status ?? 'absent'}`;
    if (j.amount_minor !== amount) return `${txId}: journal amount ${j.amount_minor}, owed ${amount}`;
    const applied = appliedById.get(txId) ?? [];
    if (applied.length !== 1) return `${txId}: applied ${applied.length} times by the wallet`;
    if (applied[0]!.amount_minor !== amount)
      return `${txId}: wallet credited ${applied[0]!.amount_minor}, owed ${amount}`;
    return null;
  };

  // ── Jackpots ──────────────────────────────────────────────────────────────────────────────
  const { rows: pools } = await stack.pool.query<{
    level: string;
    currency: string;
    contributions: string;
    wins: string;
    hits: number;
    balanced: boolean;
  }>(
    `SELECT level, trim(currency) AS currency, contributions_micros::text AS contributions, wins_micros::text AS wins,
            hits, seeded_micros + contributions_micros = amount_micros + reserve_micros + wins_micros AS balanced
       FROM jackpot_pools WHERE jackpot_id = $1`,
    [jackpotId],
  );
  // Issue 34: a contribution counts only once its debit stands. Per pool (level and currency), its
  // contributions must be exactly Σ stake × rate (integer micros) over the rounds whose debit
  // stands: by the platform's journal (a successful debit, no successful rollback or cancel), read
  // in the same snapshot as the pools, and by the wallet's own record (a debit it applied and never
  // reversed).
  const { rows: owed } = await stack.pool.query<{
    level: string;
    currency: string;
    rate: number;
    pools: string;
    journal: string;
    rounds: number;
  }>(
    `WITH stood AS (
       SELECT r.round_id, r.currency, r.bet_minor FROM rounds r
        WHERE r.jackpot_id = $1
          AND EXISTS (SELECT 1 FROM wallet_transactions d
                       WHERE d.round_id = r.round_id AND d.transaction_type = 'debit' AND d.status = 'success')
          AND NOT EXISTS (SELECT 1 FROM wallet_transactions x
                           WHERE x.round_id = r.round_id AND x.transaction_type IN ('rollback', 'cancel')
                             AND x.status = 'success')
     )
     SELECT p.level, trim(p.currency) AS currency, l.rate_ppm AS rate, p.contributions_micros::text AS pools,
            coalesce(sum(s.bet_minor::numeric * l.rate_ppm), 0)::text AS journal, count(s.round_id)::int AS rounds
       FROM jackpot_pools p JOIN jackpot_levels l USING (jackpot_id, level)
       LEFT JOIN stood s ON s.currency = p.currency
      WHERE p.jackpot_id = $1
      GROUP BY p.level, p.currency, l.rate_ppm, p.contributions_micros`,
    [jackpotId],
  );
  const { rows: fedRounds } = await stack.pool.query<{
    round_id: string;
    currency: string;
    bet_minor: bigint;
  }>(`SELECT round_id, trim(currency) AS currency, bet_minor FROM rounds WHERE jackpot_id = $1`, [jackpotId]);
  const walletStood = new Set(
    walletTx
      .filter((t) => t.transaction_type === 'debit' && t.status === 'success' && t.reversed_by === null)
      .map((t) => t.round_id),
  );
  const walletStake = new Map<string, bigint>();
  for (const r of fedRounds) {
    if (!walletStood.has(r.round_id)) continue;
    walletStake.set(r.currency, (walletStake.get(r.currency) ?? 0n) + BigInt(r.bet_minor));
  }
  const refused = fedRounds.length - fedRounds.filter((r) => walletStood.has(r.round_id)).length;
  const { rows: hits } = await stack.pool.query<{
    round_id: string;
    level: string;
    currency: string;
    amount_minor: bigint;
    status: string;
    round_status: string;
  }>(
    `SELECT h.round_id, h.level, trim(h.currency) AS currency, h.amount_minor, h.status, r.status AS round_status
       FROM jackpot_hits h JOIN rounds r USING (round_id) WHERE h.jackpot_id = $1`,
    [jackpotId],
  );
  const poolProblems: string[] = [];
  for (const o of owed) {
    const byWallet = (walletStake.get(o.currency) ?? 0n) * BigInt(o.rate);
    if (BigInt(o.pools) !== BigInt(o.journal) || BigInt(o.pools) !== byWallet)
      poolProblems.push(
        `${o.level} ${o.currency}: pools hold ${o.pools} micros contributed; rounds whose debit stands ${o.journal} by the journal (${o.rounds} rounds), ${byWallet} by the wallet`,
      );
  }
  for (const p of pools) {
    if (!p.balanced)
      poolProblems.push(`${p.level} ${p.currency}: seeds + contributions ≠ pool + reserve + wins`);
    const won = hits.filter(
      (h) => h.level === p.level && h.currency === p.currency && h.status !== 'forfeited',
    );
    const wonMicros = won.reduce((s, h) => s + BigInt(h.amount_minor) * 1_000_000n, 0n);
    if (BigInt(p.wins) !== wonMicros)
      poolProblems.push(`${p.level} ${p.currency}: wins ${p.wins} micros, hits ${wonMicros}`);
    if (p.hits !== won.length)
      poolProblems.push(`${p.level} ${p.currency}: ${p.hits} hits counted, ${won.length} not forfeited`);
  }
  check(
    'jackpot pools: contributions are Σ stake × rate over the rounds whose debit stands (journal and wallet), to the micro; wins are the hits not forfeited; every pool balances',
    poolProblems.length === 0,
    poolProblems.length
      ? fmtList(poolProblems)
      : `${pools.length} pools; ${fedRounds.length} rounds fed the jackpot, ${refused} of them with a wager that did not stand (nothing contributed); ${hits.length} hits`,
  );
  const hitProblems: string[] = [];
  const hitStatus: Record<string, number> = {};
  for (const h of hits) {
    hitStatus[h.status] = (hitStatus[h.status] ?? 0) + 1;
    const txId = `${h.round_id}:jackpot:${h.level}`;
    if (h.round_status === 'completed') {
      if (h.status !== 'paid') hitProblems.push(`${txId}: round completed, hit ${h.status}`);
      else {
        const bad = paidOnce(txId, BigInt(h.amount_minor));
        if (bad) hitProblems.push(bad);
      }
    } else {
      if (h.status !== 'forfeited') hitProblems.push(`${txId}: round ${h.round_status}, hit ${h.status}`);
      if (journalById.has(txId) || sends.has(txId))
        hitProblems.push(`${txId}: a forfeited hit was journalled or sent`);
    }
  }
  check(
    'jackpot hits: each of a completed round paid exactly once (one credit of its amount); none of a round whose wager never stood',
    hitProblems.length === 0,
    hitProblems.length ? fmtList(hitProblems) : `hits ${JSON.stringify(hitStatus)}`,
  );

  // ── Prize drops ───────────────────────────────────────────────────────────────────────────
  const { rows: dropPools } = await stack.pool.query<{ currency: string; total: number; left: number }>(
    `SELECT trim(currency) AS currency, prizes_total AS total, prizes_left AS left FROM prize_drop_pools WHERE drop_id = $1`,
    [dropId],
  );
  const { rows: awards } = await stack.pool.query<{
    payout_id: string;
    currency: string;
    amount_minor: bigint;
    status: string;
    rounds: string[];
    round_statuses: string[];
  }>(
    `SELECT p.payout_id, trim(p.currency) AS currency, p.amount_minor, p.status,
            coalesce(array_agg(r.round_id) FILTER (WHERE r.round_id IS NOT NULL), '{}') AS rounds,
            coalesce(array_agg(r.status) FILTER (WHERE r.round_id IS NOT NULL), '{}') AS round_statuses
       FROM promo_payouts p LEFT JOIN rounds r ON r.prize_drop_payout_id = p.payout_id
      WHERE p.promo_type = 'prize_drop' AND p.promo_id = $1 AND p.operator_id = ANY($2)
      GROUP BY p.payout_id`,
    [dropId, operators],
  );
  const dropProblems: string[] = [];
  for (const d of dropPools) {
    const n = awards.filter((a) => a.currency === d.currency).length;
    if (n !== d.total - d.left)
      dropProblems.push(`${d.currency}: ${n} awards, ${d.total - d.left} prizes taken`);
    if (n > d.total) dropProblems.push(`${d.currency}: ${n} awards for ${d.total} prizes`);
  }
  for (const a of awards) {
    // One completed round per award. Rounds that did not complete may name the same payout id:
    // their award was voided (the row went, the prize came back) and the player won again later.
    const completed = a.round_statuses.filter((s) => s === 'completed').length;
    if (completed !== 1)
      dropProblems.push(
        `${a.payout_id}: rounds ${a.rounds.join('/') || 'none'} (${a.round_statuses.join('/')})`,
      );
    if (a.status !== 'paid') dropProblems.push(`${a.payout_id}: ${a.status}`);
    else {
      const bad = paidOnce(`${a.payout_id}:credit`, BigInt(a.amount_minor));
      if (bad) dropProblems.push(bad);
    }
  }
  // An award of a round that did not complete was voided: its payout id is gone, unless the player
  // won again since (a later completed round names it then); nothing is ever sent for a voided award.
  const { rows: voided } = await stack.pool.query<{ n: number; sent: number }>(
    `SELECT count(*)::int AS n,
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM wallet_transactions t WHERE t.round_id = r.prize_drop_payout_id)
                               AND NOT EXISTS (SELECT 1 FROM rounds c
                                                WHERE c.prize_drop_payout_id = r.prize_drop_payout_id
                                                  AND c.status = 'completed' AND c.created_at > r.created_at))::int AS sent
       FROM rounds r
      WHERE r.operator_id = ANY($1) AND r.prize_drop_payout_id IS NOT NULL AND r.status <> 'completed'`,
    [operators],
  );
  if (voided[0]!.sent > 0) dropProblems.push(`${voided[0]!.sent} void awards were journalled`);
  check(
    'prize drops: awards never exceed the prizes; each award of one completed round, paid exactly once; void awards never sent',
    dropProblems.length === 0,
    dropProblems.length
      ? fmtList(dropProblems)
      : `${awards.length} awards (${dropPools.map((d) => `${d.currency} ${d.total - d.left}/${d.total}`).join(', ')}), ${voided[0]!.n} voided`,
  );

  // ── The tournament ────────────────────────────────────────────────────────────────────────
  const { rows: t } = await stack.pool.query<{ status: string; starts_at: Date; ends_at: Date }>(
    `SELECT status, starts_at, ends_at FROM tournaments WHERE tournament_id = $1`,
    [tournamentId],
  );
  const tour = t[0];
  const tourProblems: string[] = [];
  if (!tour) tourProblems.push('the tournament is missing');
  else {
    // total_win: each player's score is the sum of the wins of their settled rounds of the window
    // (counted in the statement recording the outcome; cancelled or rolled-back rounds never).
    const { rows: diff } = await stack.pool.query<{ who: string; score: string; expected: string }>(
      `WITH expected AS (
         SELECT r.operator_id, p.external_player_id, trim(r.currency) AS currency, sum(r.win_minor) AS total
           FROM rounds r JOIN players p ON p.player_id = r.player_id
           JOIN tournament_titles tt ON tt.tournament_id = $1 AND tt.symbol = r.symbol
          WHERE r.operator_id = ANY($2) AND r.status = 'completed' AND r.free_round_campaign_id IS NULL AND r.bet_minor > 0
            AND r.settled_at >= $3 AND r.settled_at < $4
          GROUP BY 1, 2, 3
       )
       SELECT coalesce(e.operator_id, s.operator_id) || '/' || coalesce(e.external_player_id, s.external_player_id)
                || '/' || coalesce(e.currency, trim(s.currency)) AS who,
              coalesce(s.score, 0)::text AS score, coalesce(e.total, 0)::text AS expected
         FROM expected e
         FULL JOIN (SELECT * FROM tournament_scores WHERE tournament_id = $1 AND operator_id = ANY($2)) s
           ON s.operator_id = e.operator_id AND s.external_player_id = e.external_player_id AND trim(s.currency) = e.currency
        WHERE coalesce(s.score, 0) <> coalesce(e.total, 0)`,
      [tournamentId, operators, tour.starts_at, tour.ends_at],
    );
    for (const d of diff) tourProblems.push(`${d.who}: score ${d.score}, settled wins ${d.expected}`);
    if (tour.status === 'ended' || tour.status === 'paid') {
      const { rows: prizes } = await stack.pool.query<{
        payout_id: string | null;
        prize_minor: bigint;
        status: string | null;
        amount_minor: bigint | null;
      }>(
        `SELECT s.payout_id, s.prize_minor, p.status, p.amount_minor
           FROM tournament_standings s LEFT JOIN promo_payouts p ON p.payout_id = s.payout_id
          WHERE s.tournament_id = $1 AND s.prize_minor IS NOT NULL AND s.operator_id = ANY($2)`,
        [tournamentId, operators],
      );
      for (const p of prizes) {
        if (!p.payout_id || p.amount_minor !== p.prize_minor) {
          tourProblems.push(`a prize of ${p.prize_minor} without its payout (${p.payout_id ?? 'none'})`);
          continue;
        }
        if (p.status !== 'paid') tourProblems.push(`${p.payout_id}: ${p.status}`);
        else {
          const bad = paidOnce(`${p.payout_id}:credit`, BigInt(p.prize_minor));
          if (bad) tourProblems.push(bad);
        }
      }
      facts.push(`tournament ${tour.status}: ${prizes.length} prizes paid`);
    } else facts.push(`tournament ${tour.status} (ends ${tour.ends_at.toISOString()})`);
  }
  check(
    'tournament: scores are exactly the settled wins of the window; once ended, every prize paid exactly once',
    tourProblems.length === 0,
    tourProblems.length ? fmtList(tourProblems) : `status ${tour?.status}`,
  );
  // ── No promotional credit paired with a debit ─────────────────────────────────────────────
  const paired = [
    ...journal
      .filter((j) => isPromoPayout(j.round_id) && j.transaction_type !== 'credit')
      .map((j) => `journal ${j.transaction_type} ${j.transaction_id}`),
    ...walletTx
      .filter((t) => isPromoPayout(t.round_id) && t.transaction_type !== 'credit')
      .map((t) => `wallet ${t.transaction_type} ${t.transaction_id}`),
    ...wire
      .filter(
        (w) => typeof w.round_id === 'string' && isPromoPayout(w.round_id) && w.transaction_type !== 'credit',
      )
      .map((w) => `sent ${String(w.transaction_type)} ${String(w.transaction_id)}`),
  ];
  const promoCredits = journal.filter((j) => isPromoPayout(j.round_id)).length;
  check(
    'no promotional credit is ever paired with a debit (nor a cancel or rollback)',
    paired.length === 0,
    paired.length
      ? fmtList(paired)
      : `${promoCredits} promotional credits journalled, every one alone in its payout`,
  );
  return { checks, facts };
}
