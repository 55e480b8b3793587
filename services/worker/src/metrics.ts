import type { Pool } from '@opi/db';
import { observeWalletCallbacks } from '@opi/workflows';
import client from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The worker's Prometheus metrics, served on WORKER_METRICS_PORT: its wallet callbacks (latency
 * and outcome by type and operator, the same histogram as the API's), and the settlement state
 * from the database (every worker reports the same database figures: take max() across them).
 */
export function workerMetrics(pool: Pool, taskQueue: string): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const wallet = new client.Histogram({
    name: 'opi_wallet_callback_duration_seconds',
    help: 'Wallet callback attempts by transaction type, operator and outcome (success, rejected, config_fault, uncertain)',
    labelNames: ['type', 'operator', 'outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  observeWalletCallbacks((o) =>
    wallet.observe({ type: o.operation, operator: o.operatorId, outcome: o.outcome.kind }, o.seconds),
  );

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
  new client.Gauge({
    name: 'opi_worker_info',
    help: 'The settlement worker and its task queue',
    labelNames: ['task_queue'] as const,
    registers: [registry],
  }).set({ task_queue: taskQueue }, 1);
  return registry;
}

export interface SettlementState {
  inFlight: number;
  stuck: number;
  oldestSeconds: number;
  pendingTransactions: number;
}

/** One statement over the two partial indexes of migration 0009. */
export async function settlementState(pool: Pool): Promise<SettlementState> {
  const { rows } = await pool.query<{
    in_flight: string;
    stuck: string;
    oldest: number | null;
    pending: string;
  }>(
    `SELECT count(*) FILTER (WHERE status IN ('open', 'settling')) AS in_flight,
            count(*) FILTER (WHERE stuck) AS stuck,
            extract(epoch FROM now() - min(created_at) FILTER (WHERE status IN ('open', 'settling')))::float8 AS oldest,
            (SELECT count(*) FROM wallet_transactions WHERE status = 'pending') AS pending
     FROM rounds WHERE status IN ('open', 'settling') OR stuck`,
  );
  const r = rows[0]!;
  return {
    inFlight: Number(r.in_flight),
    stuck: Number(r.stuck),
    oldestSeconds: r.oldest ?? 0,
    pendingTransactions: Number(r.pending),
  };
}
