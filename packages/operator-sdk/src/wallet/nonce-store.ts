/**
 * Where used callback nonces are remembered. `claim` answers true the first time a nonce is seen
 * and false ever after (within `ttlSeconds`, past which its timestamp can no longer pass anyway).
 * It must be atomic across everything that verifies callbacks for one wallet:
 *
 *   Redis:       SET wallet-nonce:<nonce> 1 NX EX <ttl>        -> "OK" means first
 *   PostgreSQL:  INSERT INTO wallet_nonces (nonce, seen_at) VALUES ($1, now())
 *                ON CONFLICT DO NOTHING                         -> 1 row means first
 *                (and delete rows older than the ttl now and then)
 */
export interface NonceStore {
  claim(nonce: string, ttlSeconds: number): boolean | Promise<boolean>;
}

/** In-process memory: enough for one process; use a shared store with several. */
export class MemoryNonceStore implements NonceStore {
  private readonly seen = new Map<string, number>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  claim(nonce: string, ttlSeconds: number): boolean {
    const now = this.now();
    if (now >= this.nextSweep) {
      for (const [n, until] of this.seen) if (until <= now) this.seen.delete(n);
      this.nextSweep = now + 10_000;
    }
    const until = this.seen.get(nonce);
    if (until !== undefined && until > now) return false;
    this.seen.set(nonce, now + ttlSeconds * 1000);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
