/*
 * The staff API's answers as the portal reads them (JSON: int64 amounts arrive as numbers). The
 * shared ones come from the contract package (types only; nothing of it is bundled).
 */
import type {
  Game,
  OperatorRound,
  OperatorSession,
  OperatorTransaction,
  Reconciliation,
  WalletCheckResult,
} from '@opi/contract';

export type { OperatorRound, OperatorSession, OperatorTransaction, Reconciliation, WalletCheckResult };

export interface Page<T> {
  items: T[];
  limit: number;
  next_cursor: string | null;
}

export interface OperatorInfo {
  operator_id: string;
  name: string;
  status: string;
  default_currency: string;
  allowed_currencies: string[];
  bet_limits: { min: string; max: string };
  wallet_base_url: string | null;
  wallet_secret_configured: boolean;
  role: 'viewer' | 'admin';
}

export type CatalogItem = Game & { blocker_text: string[]; installed_version: string };

export interface Catalog {
  operator_id: string;
  items: CatalogItem[];
  total: number;
  families: string[];
  launchable: number;
  blocked: number;
}

export interface SessionItem {
  session_id: string;
  player_id: string;
  game_symbol: string;
  provider_id: string;
  currency: string;
  status: string;
  device: string | null;
  created_at: string;
  last_activity_at: string;
}

export type SessionDetail = OperatorSession & { round_page: Page<OperatorRound> };

export interface TimelineEntry {
  transaction_id: string;
  transaction_type: string;
  status: string;
  amount_minor: number;
  attempts: number;
  http_status: number | null;
  error_code: string | null;
  wallet_balance: string | null;
  original_transaction_id: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface StageEntry {
  seq: number;
  action: string;
  inputs: Record<string, unknown>;
  outcome: Record<string, unknown>;
  multiplier: string | null;
  created_at: string;
}

export type RoundDetail = OperatorRound & {
  transactions: OperatorTransaction[];
  game_title: string | null;
  stored_rtp: string | null;
  updated_at: string | null;
  multi_step: boolean;
  timeline: TimelineEntry[];
  stages: StageEntry[];
};

export interface DayDifference {
  day: string;
  currency: string;
  rounds: number;
  difference_minor: number;
  pending: number;
}

export type ReconciliationView = Reconciliation & { by_day: DayDifference[] };

export interface Charts {
  from: string;
  to: string;
  daily: { day: string; currency: string; rounds: number; bet_minor: number; win_minor: number }[];
  titles: {
    symbol: string;
    title: string;
    currency: string;
    rounds: number;
    bet_minor: number;
    win_minor: number;
    stored_rtp: string | null;
  }[];
}

export interface AuditEntry {
  audit_id: string;
  at: string;
  username: string;
  operator_id: string | null;
  action: string;
  target: string | null;
  result: string;
  detail: Record<string, unknown>;
  client_ip: string | null;
}

export interface DiagnosticsRun {
  passed: boolean;
  wallet_base_url: string;
  player_id: string;
  currency: string;
  amount_minor: string;
  checks: WalletCheckResult[];
}

/** GET /api/staff/v1/operators/{id}/protection (services/api/src/staff/protection.ts). */
export interface ProtectionView {
  codes: string[];
  refusals_by_code: { code: string; count: number; last_at: string }[];
  recent_refusals: {
    transaction_id: string;
    code: string;
    player_id: string;
    session_id: string;
    round_id: string;
    game_symbol: string;
    amount_minor: string;
    currency: string;
    at: string;
  }[];
  blocked_sessions: {
    session_id: string;
    player_id: string;
    symbol: string;
    code: string;
    since: string;
    round_id: string | null;
  }[];
  reality_checks: {
    by_action: { action: string; count: number }[];
    due_unanswered: number;
    recent: {
      session_id: string;
      player_id: string;
      due_at: string;
      acknowledged_at: string;
      action: string;
      elapsed_ms: number;
      net_minor: string;
      currency: string;
    }[];
  };
}

/** A free-round campaign as the staff API lists it (amounts as strings of minor units). */
export interface FreeRoundCampaign {
  campaign_id: string;
  operator_id: string;
  symbols: string[];
  currency: string;
  bet_minor: string;
  rounds: number;
  valid_from: string;
  expires_at: string;
  created_at: string;
  cancelled_at: string | null;
  status: 'active' | 'scheduled' | 'expired' | 'cancelled';
  players_count: number;
  rounds_used: number;
  rounds_remaining: number;
  won_minor: string;
}

export interface FreeRoundCampaignRound {
  round_id: string;
  created_at: string;
  settled_at: string | null;
  player_id: string;
  session_id: string;
  game_symbol: string;
  status: string;
  stuck: boolean;
  bet_minor: number | string | null;
  win_minor: number | string;
  currency: string;
}

export type FreeRoundCampaignDetail = FreeRoundCampaign & {
  rounds_in_flight: number;
  players: {
    external_player_id: string;
    rounds_total: number;
    rounds_used: number;
    rounds_remaining: number;
    won_minor: string;
  }[];
  /** The next page of players (100 a page, by player id); null on the last. */
  players_next_cursor: string | null;
  rounds_page: Page<FreeRoundCampaignRound>;
};
