import type { PgListener } from './pg-listener.js';

/**
 * Hears `opi_config_changed` (see migration 2) on the process's listener and bumps `version`
 * whenever a cached table changes in any process. While the listening connection is down,
 * `healthy` is false and callers bypass their caches; reconnection bumps the version too (changes
 * may have been missed).
 */
export class ChangeFeed {
  version = 0;
  healthy = false;

  constructor(listener: PgListener) {
    listener.on('opi_config_changed', (payload) => {
      if (process.env.OPI_DEBUG_FEED) process.stderr.write(`feed: ${payload}\n`);
      this.version++;
    });
    listener.onState((healthy) => {
      this.healthy = healthy;
      this.version++;
    });
  }
}

/**
 * A read-through cache valid while the feed is healthy and nothing changed. A value loaded while
 * a change arrived is not kept (it may predate the change).
 */
export class ConfigCache<V> {
  private entries = new Map<string, V>();
  private version = -1;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.feed.healthy) return load();
    if (this.version !== this.feed.version) {
      this.entries.clear();
      this.version = this.feed.version;
    }
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const before = this.feed.version;
    const value = await load();
    if (this.feed.healthy && this.feed.version === before && this.version === before) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}
