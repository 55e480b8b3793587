// What the invariant checks share (invariants.ts runs them, promotions.ts adds the promotional
// ones): a check's result, the rows they read, the context they run in, the list format.
import type { RoundLoad } from './load.js';
import type { World } from './setup.js';
import type { ReliabilityStack } from './stack.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface JournalRow {
  transaction_id: string;
  operator_id: string;
  round_id: string;
  player_id: string;
  transaction_type: string;
  amount_minor: bigint;
  currency: string;
  status: string;
  error_code: string | null;
}

export interface WalletTx {
  operator_id: string;
  transaction_id: string;
  transaction_type: string;
  round_id: string;
  player_id: string;
  currency: string;
  amount_minor: bigint;
  status: string;
  player_delta_minor: bigint;
  reversed_by: string | null;
}

export interface InvariantContext {
  stack: ReliabilityStack;
  world: World;
  load: RoundLoad;
  /** Rounds the audit API reported stuck while the fault was on. */
  seenStuck: Set<string>;
}

export const fmtList = (xs: string[], n = 5) =>
  `${xs.slice(0, n).join(', ')}${xs.length > n ? ` … (${xs.length})` : ''}`;
