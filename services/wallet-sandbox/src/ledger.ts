import { createHash } from 'node:crypto';
import type { PoolClient } from '@opi/db';

/**
 * The double-entry ledger. Every money movement is a set of entries under one transaction
 * reference that sums to zero (enforced at commit by a deferred trigger); a player account's
 * balance column is moved by a trigger on each entry, so it always equals the ledger sum, and its
 * CHECK refuses a negative balance. References: `cb:<transaction_id>` (wallet callbacks),
 * `dep:<reference>` (deposits), `open:<account_id>` (opening balances).
 */

export interface Entry {
  accountId: bigint;
  amountMinor: bigint;
}

/** A player's account row, locked FOR UPDATE, with the operator's house account for its currency. */
export interface LockedPlayer {
  accountId: bigint;
  houseAccountId: bigint;
  cashAccountId: bigint;
  balanceMinor: bigint;
}

export interface PlayerKey {
  operatorId: string;
  playerId: string;
  currency: string;
}

/** Appends the entries (zero amounts are skipped) of one ledger transaction. */
export async function postEntries(
  client: PoolClient,
  operatorId: string,
  ref: string,
  currency: string,
  entries: Entry[],
): Promise<void> {
  const nonZero = entries.filter((e) => e.amountMinor !== 0n);
  if (nonZero.length === 0) return;
  const values: string[] = [];
  const params: unknown[] = [operatorId, ref, currency];
  for (const e of nonZero) {
    params.push(e.accountId.toString(), e.amountMinor.toString());
    values.push(`($1, $2, $${params.length - 1}::bigint, $${params.length}::bigint, $3)`);
  }
  await client.query(
    `INSERT INTO wallet.ledger_entries (operator_id, transaction_ref, account_id, amount_minor, currency)
     VALUES ${values.join(', ')}`,
    params,
  );
}

/** The operator's house and cash accounts in a currency, created when missing. */
export async function ensureSystemAccounts(
  client: PoolClient,
  operatorId: string,
  currency: string,
): Promise<{ house: bigint; cash: bigint }> {
  await client.query(
    `INSERT INTO wallet.accounts (operator_id, kind, currency) VALUES ($1, 'house', $2), ($1, 'cash', $2)
     ON CONFLICT (operator_id, kind, currency) WHERE kind <> 'player' DO NOTHING`,
    [operatorId, currency],
  );
  const { rows } = await client.query<{ account_id: bigint; kind: 'house' | 'cash' }>(
    `SELECT account_id, kind FROM wallet.accounts
     WHERE operator_id = $1 AND currency = $2 AND kind IN ('house', 'cash')`,
    [operatorId, currency],
  );
  const house = rows.find((r) => r.kind === 'house')?.account_id;
  const cash = rows.find((r) => r.kind === 'cash')?.account_id;
  if (house === undefined || cash === undefined) throw new Error('system accounts missing');
  return { house, cash };
}

/**
 * Creates a player account (and the operator's system accounts for the currency) with an opening
 * balance journalled against the cash account. An existing account is left unchanged
 * (`created: false`).
 */
export async function createPlayerAccount(
  client: PoolClient,
  key: PlayerKey,
  openingMinor: bigint,
): Promise<{ created: boolean; accountId: bigint }> {
  if (openingMinor < 0n) throw new RangeError('opening balance must not be negative');
  const sys = await ensureSystemAccounts(client, key.operatorId, key.currency);
  const inserted = await client.query<{ account_id: bigint }>(
    `INSERT INTO wallet.accounts (operator_id, kind, player_id, currency, balance_minor, opening_minor)
     VALUES ($1, 'player', $2, $3, 0, $4)
     ON CONFLICT (operator_id, player_id, currency) WHERE kind = 'player' DO NOTHING
     RETURNING account_id`,
    [key.operatorId, key.playerId, key.currency, openingMinor.toString()],
  );
  const row = inserted.rows[0];
  if (!row) {
    const existing = await client.query<{ account_id: bigint }>(
      `SELECT account_id FROM wallet.accounts WHERE kind = 'player' AND operator_id = $1 AND player_id = $2 AND currency = $3`,
      [key.operatorId, key.playerId, key.currency],
    );
    return { created: false, accountId: existing.rows[0]!.account_id };
  }
  await postEntries(client, key.operatorId, `open:${row.account_id}`, key.currency, [
    { accountId: row.account_id, amountMinor: openingMinor },
    { accountId: sys.cash, amountMinor: -openingMinor },
  ]);
  return { created: true, accountId: row.account_id };
}

/**
 * Locks the player's account row (SELECT ... FOR UPDATE) for the rest of the transaction, so
 * concurrent money changes of one player are serialised; undefined for an unknown player.
 */
export async function lockPlayer(client: PoolClient, key: PlayerKey): Promise<LockedPlayer | undefined> {
  const { rows } = await client.query<{
    account_id: bigint;
    balance_minor: bigint;
    house_id: bigint;
    cash_id: bigint;
  }>(
    `SELECT p.account_id, p.balance_minor, h.account_id AS house_id, c.account_id AS cash_id
     FROM wallet.accounts p
     JOIN wallet.accounts h ON h.operator_id = p.operator_id AND h.currency = p.currency AND h.kind = 'house'
     JOIN wallet.accounts c ON c.operator_id = p.operator_id AND c.currency = p.currency AND c.kind = 'cash'
     WHERE p.kind = 'player' AND p.operator_id = $1 AND p.player_id = $2 AND p.currency = $3
     FOR UPDATE OF p`,
    [key.operatorId, key.playerId, key.currency],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    accountId: row.account_id,
    houseAccountId: row.house_id,
    cashAccountId: row.cash_id,
    balanceMinor: row.balance_minor,
  };
}

/** The player's balance without locking; undefined for an unknown player. */
export async function readBalance(client: PoolClient, key: PlayerKey): Promise<bigint | undefined> {
  const { rows } = await client.query<{ balance_minor: bigint }>(
    `SELECT balance_minor FROM wallet.accounts WHERE kind = 'player' AND operator_id = $1 AND player_id = $2 AND currency = $3`,
    [key.operatorId, key.playerId, key.currency],
  );
  return rows[0]?.balance_minor;
}

/** A signed 64-bit lock key for a string (SHA-256 prefix). */
export function lockKey(text: string): bigint {
  return createHash('sha256').update(text).digest().readBigInt64BE(0);
}

/**
 * Takes transaction-scoped advisory locks on the given names, always in ascending key order so two
 * transactions can never wait on each other's locks. Callers take these before any row lock.
 */
export async function lockNames(client: PoolClient, names: string[]): Promise<void> {
  const keys = [...new Set(names.map(lockKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const key of keys) await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [key.toString()]);
}
