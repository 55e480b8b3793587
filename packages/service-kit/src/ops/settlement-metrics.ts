/**
 * The settlement state from the platform's database as Prometheus gauges, and the wallet callbacks'
 * timeout and resend counters. The workers and the API register the gauges (the API too, so that
 * the unsettled-round alerts still have data when every worker is down); every process reports the
 * same database figures: take max() across them (deploy/prometheus/rules). Under a cluster the
 * primary reports the max of its processes (aggregator max).
 */
import { observeWalletCallbacks } from '@opi/wallet';
import type { Pool } from 'pg';
import client from 'prom-client';

/** The latency histograms' buckets, in seconds (requests and wallet callbacks). */
export const LATENCY_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The wallet callbacks this process sends, observed into `registry`: the latency histogram by
 * type, operator and outcome, and the timeout and resend counters. The same definitions in the
 * API, the game server's hosted workers and the standalone workers. Returns the histogram.
 */
export function walletCallbackMetrics(registry: client.Registry) {
  const duration = walletCallbackHistogram(registry);
  const { timeouts, resends } = walletCallbackCounters(registry);
  observeWalletCallbacks((o) => {
    const labels = { type: o.operation, operator: o.operatorId };
    duration.observe({ ...labels, outcome: o.outcome.kind }, o.seconds);
    if (isTimeout(o.outcome)) timeouts.inc(labels);
    if (isResend(o.requestId)) resends.inc(labels);
  });
  return duration;
}

/** `opi_wallet_callback_duration_seconds`: the same definition in the API and the worker. */
export function walletCallbackHistogram(registry: client.Registry) {
  return new client.Histogram({
    name: 'opi_wallet_callback_duration_seconds',
    help: 'Wallet callback attempts by transaction type, operator and outcome (success, rejected, config_fault, uncertain)',
    labelNames: ['type', 'operator', 'outcome'] as const,
    buckets: LATENCY_SECONDS,
    registers: [registry],
  });
}

export function settlementGauges(registry: client.Registry, pool: Pool): void {
  let snapshot: Promise<SettlementState> | undefined;
  let at = 0;
  // One query per scrape however many gauges read it.
  const state = () => {
    if (!snapshot || Date.now() - at > 1000) {
      at = Date.now();
      snapshot = settlementState(pool).catch((err: unknown) => {
        snapshot = undefined;
        throw err;
      });
    }
    return snapshot;
  };
  const gauge = (name: string, help: string, pick: (s: SettlementState) => number) =>
    new client.Gauge({
      name,
      help,
      registers: [registry],
      aggregator: 'max',
      async collect() {
        this.set(pick(await state()));
      },
    });
  gauge(
    'opi_settlements_in_flight',
    'Rounds whose settlement has not finished (open or settling)',
    (s) => s.inFlight,
  );
  gauge(
    'opi_settlements_stuck',
    'Rounds flagged stuck: a wallet step keeps failing and staff should look',
    (s) => s.stuck,
  );
  gauge(
    'opi_settlement_oldest_in_flight_seconds',
    'Age of the oldest round still in flight (0 when none)',
    (s) => s.oldestSeconds,
  );
  gauge(
    'opi_wallet_transactions_pending',
    'Journalled wallet transactions whose outcome is not known yet',
    (s) => s.pendingTransactions,
  );
  gauge(
    'opi_promo_payouts_unpaid',
    'Promotional payouts (tournament prizes, prize drops) owed and not yet paid',
    (s) => s.unpaidPromoPayouts,
  );
  gauge(
    'opi_promo_payout_oldest_unpaid_seconds',
    'Age of the oldest unpaid promotional payout (0 when none)',
    (s) => s.oldestUnpaidPromoSeconds,
  );
  gauge(
    'opi_reconciliation_mismatched_rounds',
    'Finished rounds whose wallet side differs from their game side (reconciliation lists them; 0 when balanced)',
    (s) => s.mismatchedRounds,
  );
}

/**
 * The wallet callbacks' two counters beside the latency histogram (the API's too, through
 * @opi/service-kit): attempts that timed out (an uncertain outcome with no answer in
 * WALLET_TIMEOUT_MS), and attempts that resent a journalled transaction (its request id
 * `<transaction id>#<attempt>` with attempt > 1: the first send's outcome was not known).
 */
export function walletCallbackCounters(registry: client.Registry) {
  const timeouts = new client.Counter({
    name: 'opi_wallet_callback_timeouts_total',
    help: 'Wallet callback attempts that timed out (no answer within WALLET_TIMEOUT_MS), by type and operator',
    labelNames: ['type', 'operator'] as const,
    registers: [registry],
  });
  const resends = new client.Counter({
    name: 'opi_wallet_callback_resends_total',
    help: 'Wallet callbacks that resent a journalled transaction (its earlier outcome unknown), by type and operator',
    labelNames: ['type', 'operator'] as const,
    registers: [registry],
  });
  return { timeouts, resends };
}

/** An uncertain outcome whose reason is the timeout (packages/wallet/src/send.ts). */
export const isTimeout = (outcome: { kind: string; reason?: string }): boolean =>
  outcome.kind === 'uncertain' && (outcome.reason ?? '').startsWith('timeout');

/** A journalled transaction sent again: request id `<transaction id>#<attempt>`, attempt > 1. */
export const isResend = (requestId: string): boolean => {
  const m = /#(\d+)$/.exec(requestId);
  return !!m && Number(m[1]) > 1;
};

export interface SettlementState {
  inFlight: number;
  stuck: number;
  oldestSeconds: number;
  pendingTransactions: number;
  unpaidPromoPayouts: number;
  oldestUnpaidPromoSeconds: number;
  mismatchedRounds: number;
}

/**
 * One statement over partial indexes only: rounds in flight or stuck (migration 0009), pending
 * journal rows, pending promotional payouts (promo_payouts_pending, migration 21) and the rounds
 * reconciliation lists (round_reconciliation_differs, migration 11). A round that differs while it
 * is still open or settling is in flight, not a mismatch.
 */
export async function settlementState(pool: Pool): Promise<SettlementState> {
  const { rows } = await pool.query<{
    in_flight: string;
    stuck: string;
    oldest: number | null;
    pending: string;
    promo_unpaid: string;
    promo_oldest: number | null;
    mismatched: string;
  }>(
    `SELECT count(*) FILTER (WHERE status IN ('open', 'settling')) AS in_flight,
            count(*) FILTER (WHERE stuck) AS stuck,
            extract(epoch FROM now() - min(created_at) FILTER (WHERE status IN ('open', 'settling')))::float8 AS oldest,
            (SELECT count(*) FROM wallet_transactions WHERE status = 'pending') AS pending,
            (SELECT count(*) FROM promo_payouts WHERE status = 'pending') AS promo_unpaid,
            (SELECT extract(epoch FROM now() - min(created_at))::float8
               FROM promo_payouts WHERE status = 'pending') AS promo_oldest,
            (SELECT count(*) FROM round_reconciliation c JOIN rounds d USING (round_id)
              WHERE c.differs AND d.status NOT IN ('open', 'settling')) AS mismatched
     FROM rounds WHERE status IN ('open', 'settling') OR stuck`,
  );
  const r = rows[0]!;
  return {
    inFlight: Number(r.in_flight),
    stuck: Number(r.stuck),
    oldestSeconds: r.oldest ?? 0,
    pendingTransactions: Number(r.pending),
    unpaidPromoPayouts: Number(r.promo_unpaid),
    oldestUnpaidPromoSeconds: r.promo_oldest ?? 0,
    mismatchedRounds: Number(r.mismatched),
  };
}
