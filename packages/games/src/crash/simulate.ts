/**
 * Crash RTP simulator: the production derivation (HMAC-SHA256 of a server seed, a client seed
 * and an incrementing nonce -> crash point), evaluated for several cash-out strategies on the same
 * rounds. A strategy "cash out at t" returns t on a round whose crash point is >= t, else 0.
 */
import { createHash } from 'node:crypto';
import { crashCentsFromDraw, drawOf, rtpBasisPoints } from './fairness.js';

/** The strategies docs/crash.md documents: automatic cash-out at these multipliers (hundredths). */
export const DEFAULT_TARGETS = [101, 150, 200, 1000, 10000] as const;

export const Z99 = 2.576;

export interface StrategyResult {
  /** cash-out target in hundredths */
  readonly targetCents: number;
  readonly wins: number;
  /** measured return per unit staked */
  readonly rtp: number;
  /** rtp / t: the probability the theory gives for reaching the target */
  readonly theoryWinRate: number;
  readonly winRate: number;
  readonly stdError: number;
  readonly ci99: readonly [number, number];
}

export interface CrashSimulation {
  readonly symbol: string;
  readonly storedRtp: string;
  readonly rounds: number;
  readonly serverSeed: string;
  readonly clientSeed: string;
  /** share of rounds that crashed at 1.00x */
  readonly instantCrashRate: number;
  readonly strategies: readonly StrategyResult[];
  readonly seconds: number;
}

/**
 * Simulates `rounds` rounds of one title. Reproducible: the server seed is SHA-256 of
 * `crash-sim:<seed>:<symbol>`, the client seed `rtp-simulation`, nonces 0 .. rounds-1.
 */
export function simulateCrash(
  symbol: string,
  storedRtp: string,
  rounds: number,
  seed: number,
  targets: readonly number[] = DEFAULT_TARGETS,
): CrashSimulation {
  if (!Number.isSafeInteger(rounds) || rounds < 2) throw new RangeError('rounds must be an integer >= 2');
  const bp = rtpBasisPoints(storedRtp);
  const serverSeed = createHash('sha256').update(`crash-sim:${seed}:${symbol}`).digest('hex');
  const clientSeed = 'rtp-simulation';
  const sorted = [...targets].sort((a, b) => a - b);
  const wins = new Array<number>(sorted.length).fill(0);
  let instant = 0;
  const started = performance.now();
  for (let nonce = 0; nonce < rounds; nonce++) {
    const crash = crashCentsFromDraw(drawOf(serverSeed, clientSeed, nonce), bp);
    if (crash === 100) {
      instant++;
      continue;
    }
    for (let i = 0; i < sorted.length; i++) {
      if (crash >= sorted[i]!) wins[i]!++;
      else break;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const strategies = sorted.map((targetCents, i): StrategyResult => {
    const t = targetCents / 100;
    const p = wins[i]! / rounds;
    const rtp = t * p;
    // Per-round return is t with probability p, else 0: variance t^2 p (1 - p).
    const se = Math.sqrt((t * t * p * (1 - p)) / (rounds - 1));
    return {
      targetCents,
      wins: wins[i]!,
      rtp,
      theoryWinRate: Math.min(1, bp / 10_000 / t),
      winRate: p,
      stdError: se,
      ci99: [rtp - Z99 * se, rtp + Z99 * se],
    };
  });
  return {
    symbol,
    storedRtp,
    rounds,
    serverSeed,
    clientSeed,
    instantCrashRate: instant / rounds,
    strategies,
    seconds,
  };
}
