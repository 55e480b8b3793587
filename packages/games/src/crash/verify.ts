/**
 * Verification of a finished crash round from its public fairness record (what the game page
 * shows after the round and `GET /games/fairness/<round_id>` answers): the revealed seed matches
 * the commitment shown before the bet, the seed is a link of the chain whose terminal hash was
 * published when the chain was created, and the crash point and the result follow from the seeds.
 */
import { centsAt, crashMs } from './curve.js';
import {
  CLIENT_SEED,
  CRASH_SCHEME,
  commitmentOf,
  crashPointCents,
  formatMultiplier,
  isChainLink,
  MIN_CASHOUT_CENTS,
  parseMultiplier,
  rtpBasisPoints,
} from './fairness.js';

/** The public record of one round (JSON field names as served). */
export interface FairnessRecord {
  scheme: string;
  round_id?: string;
  symbol: string;
  /** The RTP the round was played at, two decimals ('97.00'). */
  rtp: string;
  chain: { chain_id?: string; terminal_hash: string; length: number; created_at?: string };
  /** The round's chain position k (the HMAC nonce). */
  nonce: number;
  /** Shown before the bet: seed_{k-1} = SHA-256(seed_k). */
  commitment: string;
  client_seed: string;
  /** seed_k, revealed once the round has ended (null while it runs). */
  server_seed: string | null;
  /** '2.37' once revealed. */
  crash_point: string | null;
  /** running, cashed_out, crashed, cancelled, rejected ... */
  state: string;
  /** '1.50' for a cash-out. */
  cashout_multiplier: string | null;
  /** Milliseconds after the start at which the cash-out was received (manual or automatic). */
  cashout_ms?: number | null;
}

export interface VerificationCheck {
  ok: boolean;
  what: string;
}

export interface Verification {
  ok: boolean;
  crashCents: number | null;
  checks: VerificationCheck[];
}

const HEX64 = /^[0-9a-f]{64}$/;

export function verifyFairness(rec: FairnessRecord): Verification {
  const checks: VerificationCheck[] = [];
  const check = (ok: boolean, what: string) => {
    checks.push({ ok, what });
    return ok;
  };
  check(rec.scheme === CRASH_SCHEME, `scheme ${rec.scheme} is ${CRASH_SCHEME}`);
  const seed = rec.server_seed;
  if (!check(seed !== null && HEX64.test(seed), 'the server seed is revealed (64 hex characters)') || !seed) {
    return { ok: false, crashCents: null, checks };
  }
  check(
    HEX64.test(rec.commitment) && commitmentOf(seed) === rec.commitment,
    `the commitment shown before the bet is SHA-256(server seed): ${rec.commitment}`,
  );
  const position = rec.nonce;
  const inChain =
    Number.isSafeInteger(position) &&
    position >= 1 &&
    position <= rec.chain.length &&
    HEX64.test(rec.chain.terminal_hash);
  check(
    inChain && isChainLink(seed, position, rec.chain.terminal_hash),
    `hashing the server seed ${position} time(s) gives the chain's published terminal hash ${rec.chain.terminal_hash}`,
  );
  let crashCents: number | null = null;
  if (check(CLIENT_SEED.test(rec.client_seed), 'the client seed is 1-64 printable ASCII characters')) {
    try {
      rtpBasisPoints(rec.rtp);
      crashCents = crashPointCents(seed, rec.client_seed, position, rec.rtp);
    } catch (err) {
      check(false, `the crash point can be computed: ${String(err)}`);
    }
  }
  if (crashCents !== null) {
    const recorded = rec.crash_point === null ? null : parseMultiplier(rec.crash_point);
    check(
      recorded === crashCents,
      `HMAC-SHA256(server seed, "${rec.client_seed}:${position}") at RTP ${rec.rtp} gives ${formatMultiplier(crashCents)}x; recorded ${rec.crash_point ?? 'nothing'}`,
    );
    if (rec.state === 'cashed_out') {
      const c = rec.cashout_multiplier === null ? null : parseMultiplier(rec.cashout_multiplier);
      check(
        c !== null && c >= MIN_CASHOUT_CENTS && c <= crashCents,
        `the cash-out ${rec.cashout_multiplier ?? '?'}x lies in [1.01x, crash point ${formatMultiplier(crashCents)}x]`,
      );
      if (c !== null && typeof rec.cashout_ms === 'number') {
        check(
          rec.cashout_ms < crashMs(crashCents) && centsAt(rec.cashout_ms) >= c,
          `the cash-out at ${rec.cashout_ms} ms came before the crash (${crashMs(crashCents)} ms) and the curve showed ${formatMultiplier(centsAt(rec.cashout_ms))}x`,
        );
      }
    } else if (rec.state === 'crashed') {
      check(rec.cashout_multiplier === null, 'a crashed round pays nothing');
    }
  }
  return { ok: checks.every((c) => c.ok), crashCents, checks };
}

/** A revealed seed alone (`crash-verify <seed> ...`): the commitment and terminal hash are checked when given. */
export interface SeedClaim {
  serverSeed: string;
  clientSeed: string;
  /** The chain position k (the HMAC nonce). */
  nonce: number;
  rtp: string;
  commitment?: string;
  terminal?: string;
}

/**
 * Recomputes the crash point of a revealed seed and checks it against the commitment shown before
 * the bet and the chain's terminal hash, each when given (hex compared in lower case).
 */
export function verifySeed(claim: SeedClaim): Verification & { crashCents: number } {
  const { serverSeed, nonce } = claim;
  const crashCents = crashPointCents(serverSeed, claim.clientSeed, nonce, claim.rtp);
  const checks: VerificationCheck[] = [];
  if (claim.commitment) {
    checks.push({
      ok: commitmentOf(serverSeed) === claim.commitment.toLowerCase(),
      what: `SHA-256(server seed) = commitment ${claim.commitment}`,
    });
  }
  if (claim.terminal) {
    checks.push({
      ok: isChainLink(serverSeed, nonce, claim.terminal.toLowerCase()),
      what: `hashing the seed ${nonce} time(s) gives the terminal hash ${claim.terminal}`,
    });
  }
  return { ok: checks.every((c) => c.ok), crashCents, checks };
}

/** The crash round states after which the server seed may be revealed (docs/crash.md). */
export const CRASH_REVEALED_STATES: readonly string[] = [
  'cashed_out',
  'crashed',
  'cancelling',
  'cancelled',
  'rejected',
];

/** A stored crash round, as its fairness record is presented from it. */
export interface CrashFairnessRow {
  round_id: string;
  symbol: string;
  state: string;
  rtp: string;
  scheme: string;
  chain_id: string;
  nonce: number;
  commitment: string;
  client_seed: string;
  cashout_cents: number | null;
  cashout_ms: number | null;
  server_seed: string | null;
  crash_cents: number | null;
  terminal_hash: string;
  chain_length: number;
  chain_created_at: Date;
}

/**
 * The public fairness record of a stored round (the fairness route, the crash page and the replay
 * page present this one): the server seed and the crash point only once the round has ended.
 */
export function presentFairnessRecord(r: CrashFairnessRow) {
  const revealed = CRASH_REVEALED_STATES.includes(r.state);
  return {
    scheme: r.scheme,
    round_id: r.round_id,
    symbol: r.symbol,
    rtp: r.rtp,
    chain: {
      chain_id: r.chain_id,
      terminal_hash: r.terminal_hash,
      length: r.chain_length,
      created_at: r.chain_created_at.toISOString(),
    },
    nonce: r.nonce,
    commitment: r.commitment,
    client_seed: r.client_seed,
    server_seed: revealed ? r.server_seed : null,
    crash_point: revealed && r.crash_cents !== null ? formatMultiplier(r.crash_cents) : null,
    state: r.state,
    cashout_multiplier: r.cashout_cents === null ? null : formatMultiplier(r.cashout_cents),
    cashout_ms: r.cashout_ms,
  };
}

/** A stored round's public fairness record, as presentFairnessRecord presents it (every field present). */
export type PublicFairnessRecord = ReturnType<typeof presentFairnessRecord>;
