import pg from 'pg';

type Handler = (payload: string) => void;
type StateHandler = (healthy: boolean) => void;

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The process's one dedicated LISTEN connection, shared by every channel (cache invalidation,
 * balance refresh). Channels are registered before `start()`. When the connection is lost it is
 * re-opened after a second; state handlers hear `false` on every loss and `true` once every
 * channel is listened to again (notifications sent in between are missed, so consumers that
 * cannot miss one treat the reconnect as "anything may have happened").
 */
export class PgListener {
  healthy = false;
  private client: pg.Client | undefined;
  private started = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly channels = new Map<string, Handler[]>();
  private readonly stateHandlers: StateHandler[] = [];

  constructor(private readonly url: string) {}

  /** Calls `handler` with the payload of every NOTIFY on `channel`. */
  on(channel: string, handler: Handler): void {
    if (this.started) throw new Error('PgListener: register channels before start()');
    if (!CHANNEL.test(channel)) throw new Error(`PgListener: invalid channel name ${channel}`);
    this.channels.set(channel, [...(this.channels.get(channel) ?? []), handler]);
  }

  /** Calls `handler(true)` when listening (again), `handler(false)` when the connection is lost. */
  onState(handler: StateHandler): void {
    this.stateHandlers.push(handler);
  }

  async start(): Promise<void> {
    this.started = true;
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'opi-api-listen' });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.setHealthy(false);
      client.end().catch(() => {});
      if (!this.stopped) this.retry = setTimeout(() => void this.start().catch(() => {}), 1000);
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      for (const handler of this.channels.get(n.channel) ?? []) handler(n.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
      this.client = client;
      this.setHealthy(true);
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

  private setHealthy(healthy: boolean): void {
    this.healthy = healthy;
    for (const handler of this.stateHandlers) handler(healthy);
  }
}
