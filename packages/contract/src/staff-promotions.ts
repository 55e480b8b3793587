import { z } from 'zod';
import { OperatorJackpotWin, OperatorPromoPayout } from './audit.js';
import { JackpotPoolView, JackpotView } from './jackpots.js';
import { PrizeDropPoolView, PrizeDropView } from './prize-drops.js';
import { StaffAuditEntry } from './staff-audit.js';
import { staffPage } from './staff-play.js';
import { TournamentView } from './tournaments.js';

/*
 * The staff API's jackpots, tournaments and prize drops (issue 25; /api/staff/v1/operators/
 * {operator_id}: `GET /jackpots`, `/tournaments`, `/tournaments/{id}`, `/prize-drops`,
 * `/prize-drops/{id}`; a provider admin's `POST /tournaments` and `POST /tournaments/{id}/cancel`).
 * The operator views of the contract, with what staff see besides.
 */

/** A level's pool with every hit of it (all operators of a network jackpot), forfeits taken off. */
export const StaffJackpotPool = JackpotPoolView.extend({ hits: z.number().int() });
export type StaffJackpotPool = z.infer<typeof StaffJackpotPool>;

export const StaffJackpot = JackpotView.extend({
  levels: z.array(
    z.object({
      level: z.string(),
      contribution_rate_ppm: z.number().int(),
      pools: z.array(StaffJackpotPool),
    }),
  ),
});
export type StaffJackpot = z.infer<typeof StaffJackpot>;

/** `GET /jackpots`: the jackpots the operator takes part in, and a page of its players' hits. */
export const StaffJackpotsView = z.object({
  jackpots: z.array(StaffJackpot),
  hits: staffPage(OperatorJackpotWin),
});
export type StaffJackpotsView = z.infer<typeof StaffJackpotsView>;
export type StaffJackpotHit = z.infer<typeof OperatorJackpotWin>;

/** A tournament as staff see it: the definition and its lifecycle times. */
export const StaffTournament = TournamentView.extend({
  created_at: z.string(),
  cancelled_at: z.string().nullable(),
  frozen_at: z.string().nullable(),
  paid_at: z.string().nullable(),
});
export type StaffTournament = z.infer<typeof StaffTournament>;

/** `GET /tournaments`: the latest start first. */
export const StaffTournamentList = z.object({ items: z.array(StaffTournament) });
export type StaffTournamentList = z.infer<typeof StaffTournamentList>;

/** A leaderboard's player: the operator's own by its id, another operator's by a display id only. */
export const StaffBoardPlayer = z.object({
  own: z.boolean(),
  player_id: z.string().nullable(),
  display_id: z.string(),
});
export type StaffBoardPlayer = z.infer<typeof StaffBoardPlayer>;

export const StaffLeaderboard = z.object({
  currency: z.string(),
  min_stake_minor: z.string(),
  items: z.array(
    StaffBoardPlayer.extend({
      rank: z.number().int(),
      score: z.string(),
      prize_minor: z.string().nullable(),
    }),
  ),
  prizes: z.array(
    z.object({
      rank: z.number().int(),
      amount_minor: z.string(),
      /** Once frozen, the rank's player; null before, or when nobody holds the rank. */
      winner: StaffBoardPlayer.nullable(),
      payout: z
        .object({
          status: z.enum(['pending', 'paid']),
          amount_minor: z.string(),
          /** The operator's own players only. */
          payout_id: z.string().nullable(),
          paid_at: z.string().nullable(),
        })
        .nullable(),
    }),
  ),
});
export type StaffLeaderboard = z.infer<typeof StaffLeaderboard>;

/** `GET /tournaments/{tournament_id}`: live until its end, then the frozen standings. */
export const StaffTournamentDetail = StaffTournament.extend({
  frozen: z.boolean(),
  leaderboards: z.array(StaffLeaderboard),
});
export type StaffTournamentDetail = z.infer<typeof StaffTournamentDetail>;

/** `POST /tournaments` (201 created, 200 unchanged) and `POST /tournaments/{id}/cancel`. */
export const StaffTournamentActionResult = z.object({
  result: z.enum(['created', 'unchanged', 'cancelled', 'already_cancelled']),
  tournament: StaffTournament,
  audit: StaffAuditEntry,
});
export type StaffTournamentActionResult = z.infer<typeof StaffTournamentActionResult>;

/** A drop's pool in one currency, with what this operator's players won of it. */
export const StaffPrizeDropPool = PrizeDropPoolView.extend({
  awarded_here: z.number().int(),
  paid_here: z.number().int(),
  awarded_here_minor: z.string(),
});

/** A prize drop as staff see it: its state by the window now. */
export const StaffPrizeDrop = PrizeDropView.extend({
  state: z.enum(['scheduled', 'active', 'ended', 'cancelled']),
  cancelled_at: z.string().nullable(),
  pools: z.array(StaffPrizeDropPool),
});
export type StaffPrizeDrop = z.infer<typeof StaffPrizeDrop>;

/** `GET /prize-drops`: the latest start first. */
export const StaffPrizeDropList = z.object({ items: z.array(StaffPrizeDrop) });
export type StaffPrizeDropList = z.infer<typeof StaffPrizeDropList>;

/** `GET /prize-drops/{drop_id}`: the drop and a page of its awards to the operator's players. */
export const StaffPrizeDropDetail = StaffPrizeDrop.extend({ awards: staffPage(OperatorPromoPayout) });
export type StaffPrizeDropDetail = z.infer<typeof StaffPrizeDropDetail>;
export type StaffPrizeDropAward = z.infer<typeof OperatorPromoPayout>;
