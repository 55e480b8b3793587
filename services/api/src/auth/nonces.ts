import { type Pool, prepared } from '@opi/db';

interface Claim {
  keyId: string;
  nonce: string;
  resolve: (fresh: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Single-use request nonces shared by every API process: a unique (key_id, nonce) row. Claims
 * made in the same event-loop turn go to PostgreSQL as one multi-row INSERT (group commit), so
 * the cost per request stays small under load. Use a pool created with `synchronousCommit: false`:
 * a PostgreSQL crash could forget the last fraction of a second of nonces, an accepted trade (a
 * replay would also need a captured request whose timestamp is still inside the skew window).
 */
export class NonceClaimer {
  private queue: Claim[] = [];
  private scheduled = false;

  constructor(
    private readonly pool: Pool,
    private readonly maxBatch = 500,
  ) {}

  claim(keyId: string, nonce: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ keyId, nonce, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    if (batch.length === 0) return;
    // The same nonce twice in one batch: only the first can win.
    const first = new Map<string, Claim>();
    const duplicates: Claim[] = [];
    for (const c of batch) {
      const id = `${c.keyId}\u0000${c.nonce}`;
      if (first.has(id)) duplicates.push(c);
      else first.set(id, c);
    }
    for (const d of duplicates) d.resolve(false);
    const unique = [...first.values()];
    try {
      const { rows } = await this.pool.query<{ key_id: string; nonce: string }>(
        prepared(
          `INSERT INTO request_nonces (key_id, nonce)
           SELECT * FROM unnest($1::text[], $2::text[])
           ON CONFLICT DO NOTHING RETURNING key_id, nonce`,
          [unique.map((c) => c.keyId), unique.map((c) => c.nonce)],
        ),
      );
      const inserted = new Set(rows.map((r) => `${r.key_id}\u0000${r.nonce}`));
      for (const c of unique) c.resolve(inserted.has(`${c.keyId}\u0000${c.nonce}`));
    } catch (err) {
      for (const c of unique) c.reject(err);
    }
  }
}

/** Forgets nonces older than twice the skew window (they could no longer pass the timestamp check). */
export async function purgeNonces(pool: Pool, maxSkewSeconds: number): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM request_nonces WHERE seen_at < now() - make_interval(secs => $1)`,
    [maxSkewSeconds * 2],
  );
  return rowCount ?? 0;
}
