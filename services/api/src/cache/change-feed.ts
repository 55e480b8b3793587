import pg from 'pg';

/**
 * LISTENs on `opi_config_changed` (see migration 2) and bumps `version` whenever a cached table
 * changes in any process. While the listening connection is down, `healthy` is false and callers
 * bypass their caches; reconnection bumps the version too (changes may have been missed).
 */
export class ChangeFeed {
  version = 0;
  healthy = false;
  private client: pg.Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly url: string) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'opi-api-listen' });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.healthy = false;
      this.version++;
      client.end().catch(() => {});
      if (!this.stopped) this.retry = setTimeout(() => void this.start().catch(() => {}), 1000);
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (process.env.OPI_DEBUG_FEED) process.stderr.write(`feed: ${n.payload}\n`);
      this.version++;
    });
    try {
      await client.connect();
      await client.query('LISTEN opi_config_changed');
      this.client = client;
      this.version++;
      this.healthy = true;
    } catch {
      this.client = client;
      lost();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const c = this.client;
    this.client = undefined;
    this.healthy = false;
    await c?.end().catch(() => {});
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
