import { withTransaction } from '@opi/db';
import type { Pool, PoolClient } from 'pg';

/**
 * Runs `read` in one read-only snapshot (`withTransaction`'s `snapshot`), so that its statements
 * all see the data as of one moment, and hands it the operator's reporting time zone read in that
 * snapshot ('UTC' for an operator without a row). Used by the reconciliation diff and the recount.
 */
export function inReportingSnapshot<T>(
  pool: Pool,
  operatorId: string,
  read: (client: PoolClient, tz: string) => Promise<T>,
): Promise<T> {
  return withTransaction(
    pool,
    async (client) => {
      const { rows } = await client.query<{ tz: string }>(
        'SELECT reporting_time_zone AS tz FROM operators WHERE operator_id = $1',
        [operatorId],
      );
      return read(client, rows[0]?.tz ?? 'UTC');
    },
    { snapshot: true },
  );
}
