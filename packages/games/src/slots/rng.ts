/**
 * Random sources for the slot engine.
 *
 * `Rng.int(n)` returns a uniform integer in [0, n). Both implementations use
 * rejection sampling on 32-bit words, so there is no modulo bias.
 *
 * - `CryptoRng` draws from the OS CSPRNG (buffered `randomFillSync`) and is the only
 *   source allowed for real-money rounds.
 * - `SeededRng` (xoshiro128**) is deterministic and exists ONLY for the RTP
 *   simulator and tests.
 */
import { randomFillSync } from 'node:crypto';

export interface Rng {
  int(maxExclusive: number): number;
}

const TWO_32 = 0x1_0000_0000;

function checkBound(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1 || n > TWO_32) {
    throw new RangeError(`maxExclusive must be an integer in [1, 2^32], got ${String(n)}`);
  }
}

/** Uniform in [0, n) from a source of uniform uint32 words (rejection sampling). */
function uniform(n: number, next: () => number): number {
  const limit = TWO_32 - (TWO_32 % n);
  let r = next();
  while (r >= limit) r = next();
  return r % n;
}

export class CryptoRng implements Rng {
  readonly #buf: Buffer;
  #pos: number;
  readonly #next = (): number => {
    if (this.#pos + 4 > this.#buf.length) {
      randomFillSync(this.#buf);
      this.#pos = 0;
    }
    const v = this.#buf.readUInt32LE(this.#pos);
    this.#pos += 4;
    return v;
  };

  constructor(bufferBytes = 4096) {
    if (!Number.isInteger(bufferBytes) || bufferBytes < 4 || bufferBytes % 4 !== 0) {
      throw new RangeError('bufferBytes must be a positive multiple of 4');
    }
    this.#buf = Buffer.alloc(bufferBytes);
    this.#pos = bufferBytes; // force a refill on first use
  }

  int(maxExclusive: number): number {
    checkBound(maxExclusive);
    return uniform(maxExclusive, this.#next);
  }
}

/** xoshiro128** seeded through splitmix32. Deterministic: simulator and tests only. */
export class SeededRng implements Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;
  readonly seed: number;
  readonly #next = (): number => {
    const result = Math.imul(rotl(Math.imul(this.#b, 5), 7), 9) >>> 0;
    const t = this.#b << 9;
    this.#c ^= this.#a;
    this.#d ^= this.#b;
    this.#b ^= this.#c;
    this.#a ^= this.#d;
    this.#c ^= t;
    this.#d = rotl(this.#d, 11);
    return result;
  };

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new RangeError('seed must be a safe integer');
    this.seed = seed;
    let s = (seed ^ Math.floor(seed / TWO_32)) >>> 0;
    const split = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
      z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
      return (z ^ (z >>> 15)) | 0;
    };
    this.#a = split();
    this.#b = split();
    this.#c = split();
    this.#d = split();
    if ((this.#a | this.#b | this.#c | this.#d) === 0) this.#a = 1;
  }

  /** Raw uniform uint32. */
  nextUint32(): number {
    return this.#next();
  }

  int(maxExclusive: number): number {
    checkBound(maxExclusive);
    return uniform(maxExclusive, this.#next);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
