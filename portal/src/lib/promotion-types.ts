/*
 * The staff API's jackpot, tournament and prize-drop answers as the portal reads them (issue 25;
 * services/api/src/staff/promotions.ts). Amounts are minor units (strings, or numbers where the
 * audit API's int64 arrives as a JSON integer).
 */
import type { Page } from './types';

export interface JackpotPool {
  currency: string;
  amount_minor: string;
  seed_minor: string;
  cap_minor: string | null;
  hit_every_minor: string;
  hits: number;
}

export interface StaffJackpot {
  jackpot_id: string;
  name: string;
  scope: 'network' | 'operator';
  status: 'active' | 'closed';
  titles: string[];
  levels: { level: string; contribution_rate_ppm: number; pools: JackpotPool[] }[];
}

export interface JackpotHit {
  round_id: string;
  jackpot_id: string;
  level: string;
  currency: string;
  player_id: string;
  amount_minor: number | string;
  status: 'pending' | 'paid' | 'forfeited';
  transaction_id: string;
  created_at: string;
  settled_at: string | null;
}

export interface JackpotsView {
  jackpots: StaffJackpot[];
  hits: Page<JackpotHit>;
}

export type TournamentStatus = 'scheduled' | 'running' | 'ended' | 'paid' | 'cancelled';

export interface StaffTournament {
  tournament_id: string;
  name: string;
  scoring: 'max_multiplier' | 'total_win';
  starts_at: string;
  ends_at: string;
  status: TournamentStatus;
  created_at: string;
  cancelled_at: string | null;
  frozen_at: string | null;
  paid_at: string | null;
  titles: string[];
  currencies: {
    currency: string;
    min_stake_minor: string;
    prizes: { rank: number; amount_minor: string }[];
  }[];
}

export interface BoardPlayer {
  own: boolean;
  player_id: string | null;
  display_id: string;
}

export interface StaffTournamentDetail extends StaffTournament {
  frozen: boolean;
  leaderboards: {
    currency: string;
    min_stake_minor: string;
    items: (BoardPlayer & { rank: number; score: string; prize_minor: string | null })[];
    prizes: {
      rank: number;
      amount_minor: string;
      winner: BoardPlayer | null;
      payout: {
        status: 'pending' | 'paid';
        amount_minor: string;
        payout_id: string | null;
        paid_at: string | null;
      } | null;
    }[];
  }[];
}

export interface StaffPrizeDrop {
  drop_id: string;
  name: string;
  status: 'active' | 'cancelled';
  state: 'scheduled' | 'active' | 'ended' | 'cancelled';
  starts_at: string;
  ends_at: string;
  cancelled_at: string | null;
  titles: string[];
  pools: {
    currency: string;
    prize_minor: string;
    prizes_total: number;
    prizes_left: number;
    min_stake_minor: string;
    award_every_spins: number;
    awarded_here: number;
    paid_here: number;
    awarded_here_minor: string;
  }[];
}

export interface PrizeDropAward {
  payout_id: string;
  player_id: string;
  currency: string;
  amount_minor: number | string;
  status: 'pending' | 'paid';
  transaction_id: string;
  transaction_status: string | null;
  created_at: string;
  paid_at: string | null;
}

export type StaffPrizeDropDetail = StaffPrizeDrop & { awards: Page<PrizeDropAward> };
