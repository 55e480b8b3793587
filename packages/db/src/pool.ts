import { createHash } from 'node:crypto';
import pg from 'pg';

const INT8_OID = 20;

/** Type parsers for this pool only: int8 (bigint money columns, counts) becomes a JS BigInt. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => BigInt(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** false: commits of this pool's sessions return before the WAL flush (for replaceable data only). */
  synchronousCommit?: boolean;
}

/** A pg pool whose int8 values are BigInt, so minor-unit amounts are never floats. */
export function createPool(connectionString: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'opi',
    types,
    ...(options.synchronousCommit === false ? { options: '-c synchronous_commit=off' } : {}),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client's error (the server restarted, say) must not crash the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * Runs `fn` in one transaction: commit on success, roll back on any error. Money state changes
 * go through here so they happen whole or not at all. With `snapshot`, the transaction is
 * REPEATABLE READ READ ONLY: every statement sees the one snapshot taken by the first, and none
 * may write (reports that read several tables as of one moment).
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: { snapshot?: boolean } = {},
): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no error listener (the pool takes its own off): a server that ends
  // the connection between two statements (a restart, say) would emit an unhandled 'error' and
  // take the whole process down. Listen here; such a client is destroyed, not pooled again.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on('error', onError);
  try {
    await client.query(options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

/**
 * A named (prepared) statement for a hot path: each connection parses and plans `text` once and
 * then only binds it (node-postgres plans every unnamed statement on every call). The name is the
 * text's hash, so a statement assembled from parts (one text per variant) gets one name per
 * variant and two different texts never share one. Every value must be a parameter: a literal
 * that changes per call would prepare a new statement on every connection each time.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig<unknown[]> {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `opi_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (preparedNames.size < 4096) preparedNames.set(text, name);
  }
  return { name, text, values };
}
const preparedNames = new Map<string, string>();
