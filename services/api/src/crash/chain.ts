import { randomUUID } from 'node:crypto';
import type { PoolClient, SecretBox } from '@opi/db';
import { CHAIN_LENGTH, chainSeed, hashTimes, newServerSeed } from '@opi/games';

/** Who owns a seed chain and its rounds: a prov_d player, or a demo session. */
export type Owner = { kind: 'player'; id: string } | { kind: 'demo'; id: string };

export const ownerColumn = (owner: Owner): 'player_id' | 'demo_id' =>
  owner.kind === 'player' ? 'player_id' : 'demo_id';

export interface ChainRow {
  chain_id: string;
  length: number;
  root_seed_enc: string;
  terminal_hash: string;
  next_position: number;
  created_at: Date;
}

export interface NextCommitment {
  chain: ChainRow;
  /** The chain position the next bet consumes (the HMAC nonce). */
  position: number;
  /** seed_{position-1}: what the page shows before the bet. */
  commitment: string;
}

/**
 * The owner's live chain for a title, locked when `lock` (inside a transaction), created when
 * there is none (a new root from the CSPRNG, sealed; its terminal hash published from now on).
 */
export async function liveChain(
  c: PoolClient,
  box: SecretBox,
  owner: Owner,
  symbol: string,
  lock: boolean,
): Promise<ChainRow> {
  const col = ownerColumn(owner);
  const select = `SELECT chain_id, length, root_seed_enc, terminal_hash, next_position, created_at
                  FROM crash_seed_chains WHERE ${col} = $1 AND symbol = $2 AND exhausted_at IS NULL
                  ${lock ? 'FOR UPDATE' : ''}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await c.query<ChainRow>(select, [owner.id, symbol]);
    if (rows[0]) return rows[0];
    const root = newServerSeed();
    await c.query(
      `INSERT INTO crash_seed_chains (chain_id, ${col}, symbol, length, root_seed_enc, terminal_hash)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT DO NOTHING`,
      [
        `ch_${randomUUID()}`,
        owner.id,
        symbol,
        CHAIN_LENGTH,
        box.encrypt(root),
        hashTimes(root, CHAIN_LENGTH),
      ],
    );
  }
  throw new Error('could not create a seed chain');
}

/** The commitment the next bet must name. */
export function nextCommitment(box: SecretBox, chain: ChainRow): NextCommitment {
  const root = box.decrypt(chain.root_seed_enc);
  const position = chain.next_position;
  return { chain, position, commitment: chainSeed(root, chain.length, position - 1) };
}

/** The seed of a chain position (the round's server seed). */
export function seedAt(box: SecretBox, chain: ChainRow, position: number): string {
  return chainSeed(box.decrypt(chain.root_seed_enc), chain.length, position);
}

/** Marks `position` used; the chain is exhausted after its last link (the next read draws a new one). */
export async function consumePosition(c: PoolClient, chain: ChainRow, position: number): Promise<void> {
  await c.query(
    `UPDATE crash_seed_chains SET next_position = $2 + 1,
            exhausted_at = CASE WHEN $2 >= length THEN now() ELSE NULL END
     WHERE chain_id = $1`,
    [chain.chain_id, position],
  );
}
