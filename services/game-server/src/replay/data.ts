import type { Pool } from '@opi/db';
import {
  type CrashFairnessRow,
  isSlotTitle,
  type PublicFairnessRecord,
  presentFairnessRecord,
  type RoundStage,
} from '@opi/games';
import { decimalStringToMinor } from '@opi/money';
import { wagerStandsSql } from '@opi/play/settlement/wager-stands';

/*
 * What a replay page shows of one round: the stored round as it was recorded (rounds row, its
 * stages, its wallet transactions, and for crash its fairness record). Read-only; nothing here
 * calls a wallet or needs a session.
 */

export type ReplayFamily = 'slot' | 'mines' | 'hilo' | 'dice' | 'crash' | 'other';

/** A stage of the round, its time as an ISO string. */
export type ReplayStage = RoundStage<string>;

export interface ReplayWalletStep {
  type: string;
  status: string;
  amount_minor: string;
  /** The wallet's answered balance (decimal string), as journalled; null when it did not answer. */
  wallet_balance: string | null;
}

export interface ReplayRound {
  round_id: string;
  symbol: string;
  title: string;
  provider_id: string;
  family: ReplayFamily;
  currency: string;
  /** The unit the round's session showed amounts in (issue 39), or null: the currency's first unit. */
  display_unit?: string | null;
  status: 'open' | 'settling' | 'completed' | 'rejected' | 'cancelled' | 'rolled_back';
  stuck: boolean;
  bet_minor: string;
  win_minor: string;
  jackpot_win_minor: string;
  free_round: { campaign_id: string; bet_minor: string | null } | null;
  created_at: string;
  settled_at: string | null;
  /**
   * Whether the round's wager stands (its debit applied, or a free round: issue 34,
   * @opi/play/settlement/wager-stands). Until it does the page shows nothing of the result.
   */
  wager_stands: boolean;
  /**
   * The latest revocation of the round's replay links, or of its operator's (issue 34): links
   * issued before it do not open. Null: none.
   */
  revoked_at: Date | null;
  /** rounds.outcome as stored (slots: the engine's grid, line wins, free spins). */
  outcome: unknown;
  stages: ReplayStage[];
  wallet: ReplayWalletStep[];
  /** Minor units before the round's first money movement and after its last; null: not recorded. */
  balance_before_minor: string | null;
  balance_after_minor: string | null;
  /**
   * Crash: the public fairness record, as `GET /games/fairness/<round_id>` and the crash page present
   * it (server seed and crash point only once the round has ended; docs/crash.md).
   */
  fairness: PublicFairnessRecord | null;
  /** Crash: the cash-out (hundredths) and its time after the start, the auto target, the round's state. */
  crash: {
    state: string;
    stake_minor: string;
    auto_cashout_cents: number | null;
    cashout_cents: number | null;
    cashout_ms: number | null;
    crash_cents: number | null;
  } | null;
}

/** A crash round as the replay reads it: its fairness record's row, the stake and the auto cash-out. */
interface CrashRow extends CrashFairnessRow {
  stake_minor: bigint;
  auto_cashout_cents: number | null;
}

const FAMILY_BY_SYMBOL: Record<string, ReplayFamily> = { cnmines: 'mines', cnhilo: 'hilo', cndice: 'dice' };

function familyOf(providerId: string, symbol: string): ReplayFamily {
  if (isSlotTitle(providerId)) return 'slot';
  if (providerId === 'prov_d') return 'crash';
  if (providerId === 'prov_c') return FAMILY_BY_SYMBOL[symbol] ?? 'other';
  return 'other';
}

function minorOf(decimal: string | null, currency: string): bigint | null {
  if (decimal === null) return null;
  try {
    return decimalStringToMinor(decimal, currency);
  } catch {
    return null;
  }
}

/**
 * The balance before and after from the round's journalled wallet answers: before = the first
 * successful debit's answered balance plus its amount (a free round has no debit: its credit's
 * balance less the win); after = the last successful step's answered balance. Null where the
 * wallet's answer was not journalled.
 */
function balances(
  wallet: ReplayWalletStep[],
  currency: string,
): { before: string | null; after: string | null } {
  const ok = wallet.filter((w) => w.status === 'success' && w.type !== 'balance');
  const first = ok[0];
  const last = ok[ok.length - 1];
  let before: bigint | null = null;
  if (first) {
    const answered = minorOf(first.wallet_balance, currency);
    if (answered !== null) {
      const amount = BigInt(first.amount_minor);
      before =
        first.type === 'debit' ? answered + amount : first.type === 'credit' ? answered - amount : null;
    }
  }
  const after = last ? minorOf(last.wallet_balance, currency) : null;
  return { before: before?.toString() ?? null, after: after?.toString() ?? null };
}

/** The stored round, or null for no such round (a demo crash round has no rounds row: null). */
export async function loadReplay(pool: Pool, roundId: string): Promise<ReplayRound | null> {
  const { rows } = await pool.query<{
    round_id: string;
    symbol: string;
    title: string;
    provider_id: string;
    currency: string;
    status: ReplayRound['status'];
    stuck: boolean;
    bet_minor: bigint;
    win_minor: bigint;
    jackpot_win_minor: bigint;
    free_round_campaign_id: string | null;
    free_round_bet_minor: bigint | null;
    outcome: unknown;
    created_at: Date;
    settled_at: Date | null;
    wager_stands: boolean;
    revoked_at: Date | null;
    display_unit: string | null;
  }>(
    `SELECT r.round_id, r.symbol, g.title, r.provider_id, trim(r.currency) AS currency, r.status, r.stuck,
            r.bet_minor, r.win_minor, r.jackpot_win_minor, r.free_round_campaign_id, r.free_round_bet_minor,
            r.outcome, r.created_at, r.settled_at, ${wagerStandsSql('r')} AS wager_stands,
            (SELECT s.display_unit FROM sessions s WHERE s.session_id = r.session_id) AS display_unit,
            (SELECT max(v.revoked_at) FROM replay_link_revocations v
              WHERE (v.scope = 'round' AND v.subject_id = r.round_id)
                 OR (v.scope = 'operator' AND v.subject_id = r.operator_id)) AS revoked_at
     FROM rounds r JOIN games g ON g.symbol = r.symbol
     WHERE r.round_id = $1`,
    [roundId],
  );
  const r = rows[0];
  if (!r) return null;
  const family = familyOf(r.provider_id, r.symbol);
  const [stages, wallet, crash] = await Promise.all([
    pool.query<RoundStage>(
      `SELECT seq, action, inputs, outcome, multiplier::text AS multiplier, created_at
       FROM round_stages WHERE round_id = $1 ORDER BY seq`,
      [roundId],
    ),
    pool.query<{ type: string; status: string; amount_minor: bigint; wallet_balance: string | null }>(
      `SELECT transaction_type AS type, status, amount_minor, wallet_balance
       FROM wallet_transactions WHERE round_id = $1
       ORDER BY created_at, transaction_id`,
      [roundId],
    ),
    family === 'crash'
      ? pool.query<CrashRow>(
          `SELECT cr.round_id, cr.symbol, cr.state, cr.stake_minor, cr.rtp, cr.scheme, cr.chain_id, cr.nonce,
                  cr.commitment, cr.client_seed, cr.auto_cashout_cents, cr.cashout_cents, cr.cashout_ms,
                  cr.server_seed, cr.crash_cents, ch.terminal_hash, ch.length AS chain_length,
                  ch.created_at AS chain_created_at
           FROM crash_rounds cr JOIN crash_seed_chains ch ON ch.chain_id = cr.chain_id
           WHERE cr.round_id = $1 AND cr.mode = 'operator-wallet'`,
          [roundId],
        )
      : Promise.resolve(null),
  ]);
  const walletSteps = wallet.rows.map((w) => ({
    type: w.type,
    status: w.status,
    amount_minor: w.amount_minor.toString(),
    wallet_balance: w.wallet_balance,
  }));
  const bal = balances(walletSteps, r.currency);
  const cr = crash?.rows[0] ?? null;
  // The fairness record reveals the seed and crash point only once the round has ended.
  const fairness = cr ? presentFairnessRecord(cr) : null;
  return {
    round_id: r.round_id,
    symbol: r.symbol,
    title: r.title,
    provider_id: r.provider_id,
    family,
    currency: r.currency,
    display_unit: r.display_unit,
    status: r.status,
    stuck: r.stuck,
    bet_minor: r.bet_minor.toString(),
    win_minor: r.win_minor.toString(),
    jackpot_win_minor: r.jackpot_win_minor.toString(),
    free_round: r.free_round_campaign_id
      ? { campaign_id: r.free_round_campaign_id, bet_minor: r.free_round_bet_minor?.toString() ?? null }
      : null,
    created_at: r.created_at.toISOString(),
    settled_at: r.settled_at?.toISOString() ?? null,
    wager_stands: r.wager_stands,
    revoked_at: r.revoked_at,
    outcome: r.outcome,
    stages: stages.rows.map((s) => ({ ...s, created_at: s.created_at.toISOString() })),
    wallet: walletSteps,
    balance_before_minor: bal.before,
    balance_after_minor: bal.after,
    fairness,
    crash:
      cr && fairness
        ? {
            state: cr.state,
            stake_minor: cr.stake_minor.toString(),
            auto_cashout_cents: cr.auto_cashout_cents,
            cashout_cents: cr.cashout_cents,
            cashout_ms: cr.cashout_ms,
            // Only once revealed (the fairness record's rule).
            crash_cents: fairness.crash_point === null ? null : cr.crash_cents,
          }
        : null,
  };
}
