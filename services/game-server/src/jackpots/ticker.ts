import type { Pool } from '@opi/db';
import { isSlotTitle } from '@opi/games';
import type { PlayDeps } from '@opi/play/deps';
import { loadSpinJackpot } from '@opi/play/jackpots/spin-jackpot';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';

/** What a game page's jackpot ticker shows: each level's pool in whole minor units (what a hit pays now). */
export interface JackpotTick {
  jackpot_id: string;
  name: string;
  currency: string;
  levels: {
    level: string;
    amount_minor: string;
    hits: number;
    last_win_minor: string | null;
    last_win_at: string | null;
  }[];
}

/** How often a process reads the pools its pages watch (a ticker moves within a second). */
export const TICK_INTERVAL_MS = 400;

/**
 * The game page's live jackpot values. One read per interval per process, of the pools its open
 * pages watch (not a NOTIFY per spin: the cost stays flat however many spins contribute), and an
 * `event: jackpot` on each watching stream when a value changed. Pages without a stream (prov_b)
 * read `GET /api/runtime/jackpot`, answered from the same snapshot while it is fresh.
 */
export class JackpotTicker {
  private readonly watchers = new Map<string, string>();
  private readonly ticks = new Map<string, { tick: JackpotTick; text: string; at: number }>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly send: (subscriberId: string, tick: JackpotTick) => boolean,
    private readonly intervalMs = TICK_INTERVAL_MS,
  ) {}

  watch(subscriberId: string, jackpotId: string, currency: string): void {
    const key = `${jackpotId}|${currency}`;
    this.watchers.set(subscriberId, key);
    const known = this.ticks.get(key);
    if (known) this.send(subscriberId, known.tick);
    this.timer ??= setInterval(() => void this.poll(), this.intervalMs).unref();
  }

  unwatch(subscriberId: string): void {
    this.watchers.delete(subscriberId);
    if (this.watchers.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** The jackpot's values now (from the snapshot while it is fresh). */
  async current(jackpotId: string, currency: string): Promise<JackpotTick | null> {
    const key = `${jackpotId}|${currency}`;
    const known = this.ticks.get(key);
    if (known && Date.now() - known.at < this.intervalMs) return known.tick;
    const read = await this.read([key]);
    this.remember(read, Date.now());
    return read.get(key) ?? null;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.watchers.clear();
  }

  /** One read of every watched pool; changed values go out to their watchers. */
  async poll(): Promise<void> {
    if (this.polling) return this.polling;
    const keys = [...new Set(this.watchers.values())];
    if (keys.length === 0) return;
    this.polling = (async () => {
      try {
        const read = await this.read(keys);
        const changed = this.remember(read, Date.now());
        for (const [subscriber, key] of this.watchers) {
          if (!changed.has(key)) continue;
          if (!this.send(subscriber, read.get(key)!)) this.watchers.delete(subscriber);
        }
      } catch {
        // The next interval tries again (the database may be restarting).
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  private remember(read: Map<string, JackpotTick>, at: number): Set<string> {
    const changed = new Set<string>();
    for (const [key, tick] of read) {
      const text = JSON.stringify(tick);
      if (this.ticks.get(key)?.text !== text) changed.add(key);
      this.ticks.set(key, { tick, text, at });
    }
    return changed;
  }

  private async read(keys: string[]): Promise<Map<string, JackpotTick>> {
    const ids = keys.map((k) => k.split('|')[0]!);
    const currencies = keys.map((k) => k.split('|')[1]!);
    const { rows } = await this.pool.query<{
      jackpot_id: string;
      name: string;
      currency: string;
      level: string;
      amount_minor: string;
      hits: number;
      last_win_minor: string | null;
      last_win_at: Date | null;
    }>(
      `SELECT p.jackpot_id, j.name, trim(p.currency) AS currency, p.level, (p.amount_micros / 1000000)::text AS amount_minor,
              p.hits, p.last_win_minor::text AS last_win_minor, p.last_win_at
         FROM unnest($1::text[], $2::text[]) AS k(jackpot_id, currency)
         JOIN jackpot_pools p ON p.jackpot_id = k.jackpot_id AND p.currency = k.currency
         JOIN jackpot_levels l ON l.jackpot_id = p.jackpot_id AND l.level = p.level
         JOIN jackpots j ON j.jackpot_id = p.jackpot_id
        ORDER BY p.jackpot_id, p.currency, l.position`,
      [ids, currencies],
    );
    const out = new Map<string, JackpotTick>();
    for (const r of rows) {
      const key = `${r.jackpot_id}|${r.currency}`;
      let tick = out.get(key);
      if (!tick) {
        tick = { jackpot_id: r.jackpot_id, name: r.name, currency: r.currency, levels: [] };
        out.set(key, tick);
      }
      tick.levels.push({
        level: r.level,
        amount_minor: r.amount_minor,
        hits: r.hits,
        last_win_minor: r.last_win_minor,
        last_win_at: r.last_win_at?.toISOString() ?? null,
      });
    }
    return out;
  }
}

/** The jackpot a session's paid spins feed (slot families only), from the process's cache. */
export async function sessionJackpotId(
  deps: Pick<PlayDeps, 'pool' | 'caches'>,
  session: RuntimeSession,
): Promise<string | null> {
  if (!isSlotTitle(session.provider_id)) return null;
  const jackpot = await deps.caches.jackpots.get(
    `${session.operator_id}|${session.symbol}|${session.currency}`,
    () => loadSpinJackpot(deps.pool, session.operator_id, session.symbol, session.currency),
  );
  return jackpot?.jackpotId ?? null;
}
