import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient, SecretBox } from '@opi/db';
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
  /**
   * Whether the next commitment may be shown. It is seed_{k-1}: the server seed of the round that
   * used position k-1, so it stays hidden until that round has ended and revealed it (else the
   * page would learn a running round's crash point). Read in the same statement as the chain.
   */
  next_public: boolean;
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
  c: Pool | PoolClient,
  box: SecretBox,
  owner: Owner,
  symbol: string,
  lock: boolean,
): Promise<ChainRow> {
  const col = ownerColumn(owner);
  const select = `SELECT ch.chain_id, ch.length, ch.root_seed_enc, ch.terminal_hash, ch.next_position, ch.created_at,
                         (ch.next_position = 1 OR EXISTS (
                           SELECT 1 FROM crash_rounds cr
                           WHERE cr.chain_id = ch.chain_id AND cr.nonce = ch.next_position - 1
                             AND cr.server_seed IS NOT NULL)) AS next_public
                  FROM crash_seed_chains ch WHERE ch.${col} = $1 AND ch.symbol = $2 AND ch.exhausted_at IS NULL
                  ${lock ? 'FOR UPDATE OF ch' : ''}`;
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

/** The commitment the next bet must name, or null while it is the seed of an unfinished round. */
export function nextCommitment(box: SecretBox, chain: ChainRow): NextCommitment | null {
  if (!chain.next_public) return null;
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
