/**
 * The multiplier curve, on server time: m(t) = e^(GROWTH_PER_MS * t), t in whole milliseconds
 * since the round started (after the debit succeeded). The displayed and paid multiplier is
 * m(t) floored to hundredths. 2.00x is reached after ~11.6 s, 10x after ~38.4 s, the 10,000x cap
 * after ~153.5 s.
 *
 * A round with crash point c (hundredths) shows every value up to c and crashes at the first
 * millisecond whose multiplier would exceed it; a crash point of 1.00x crashes at once. A cash-out
 * received at time t pays centsAt(t) when MIN_CASHOUT_CENTS <= centsAt(t) <= c.
 */
import { CRASH_CAP_CENTS, MIN_CASHOUT_CENTS } from './fairness.js';

export const GROWTH_PER_MS = 0.00006;

/** The multiplier in hundredths at `ms` milliseconds after the start (floor). */
export function centsAt(ms: number): number {
  if (ms <= 0) return 100;
  return Math.floor(100 * Math.exp(GROWTH_PER_MS * Math.floor(ms)));
}

/** The first whole millisecond at which the multiplier shows at least `cents`. */
export function msToReach(cents: number): number {
  if (cents <= 100) return 0;
  let ms = Math.max(0, Math.ceil(Math.log(cents / 100) / GROWTH_PER_MS) - 2);
  while (centsAt(ms) < cents) ms++;
  return ms;
}

/** When the round crashes, in milliseconds after its start. */
export function crashMs(crashCents: number): number {
  if (crashCents <= 100) return 0;
  return msToReach(crashCents + 1);
}

/** The longest a round can run (the cap's crash time). */
export const MAX_ROUND_MS = crashMs(CRASH_CAP_CENTS);

export type CrashPhase =
  | { state: 'running'; cents: number }
  | { state: 'cashed_out'; cents: number; atMs: number }
  | { state: 'crashed'; atMs: number };

/**
 * What a started round looks like `ms` after its start, with nobody acting but the optional
 * auto cash-out target (hundredths, set with the bet).
 */
export function phaseAt(crashCents: number, ms: number, autoCashoutCents: number | null): CrashPhase {
  const crashAt = crashMs(crashCents);
  if (autoCashoutCents !== null && autoCashoutCents >= MIN_CASHOUT_CENTS && autoCashoutCents <= crashCents) {
    const autoAt = msToReach(autoCashoutCents);
    if (ms >= autoAt) return { state: 'cashed_out', cents: autoCashoutCents, atMs: autoAt };
  }
  if (ms >= crashAt) return { state: 'crashed', atMs: crashAt };
  return { state: 'running', cents: centsAt(ms) };
}

/** When nothing further can happen without the player: the auto cash-out or the crash (ms after start). */
export function decidedAtMs(crashCents: number, autoCashoutCents: number | null): number {
  const crashAt = crashMs(crashCents);
  if (autoCashoutCents !== null && autoCashoutCents >= MIN_CASHOUT_CENTS && autoCashoutCents <= crashCents) {
    return Math.min(crashAt, msToReach(autoCashoutCents));
  }
  return crashAt;
}

/** Whether a manual cash-out received `ms` after the start wins, and at what multiplier. */
export function cashoutAt(
  crashCents: number,
  ms: number,
): { ok: true; cents: number } | { ok: false; reason: 'crashed' | 'too_early' } {
  if (ms >= crashMs(crashCents)) return { ok: false, reason: 'crashed' };
  const cents = centsAt(ms);
  if (cents < MIN_CASHOUT_CENTS) return { ok: false, reason: 'too_early' };
  return { ok: true, cents: Math.min(cents, crashCents) };
}
