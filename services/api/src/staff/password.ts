import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/*
 * Staff passwords are hashed with scrypt (RFC 7914) at OWASP's current cost: N = 2^17, r = 8,
 * p = 1 (128 MiB and ~0.4 s per hash on a 2-core machine), a 16-byte random salt, a 32-byte key.
 * The stored form names its parameters, `scrypt$17$8$1$<salt>$<hash>` (base64url), so hashes made
 * at an older cost (2^15 until issue 23) still verify and are replaced at the next good login.
 */
export const SCRYPT_COST = { logN: 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** scrypt needs 128 * N * r * p bytes (128 MiB at the cost above); allow twice that. */
const maxmem = (logN: number, r: number, p: number) => 256 * 2 ** logN * r * p;

/**
 * At most this many hashes run at once in a process (each holds 128 MiB for ~0.4 s), so a flood
 * of logins cannot exhaust memory or the libuv thread pool; others wait in line, and past
 * HASH_QUEUE_LIMIT waiting the attempt is refused at once (HashQueueFull: the login answers 429).
 */
export const HASH_CONCURRENCY = 2;
export const HASH_QUEUE_LIMIT = 32;

export class HashQueueFull extends Error {
  constructor() {
    super('too many password checks in progress');
  }
}

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASH_CONCURRENCY) {
    if (waiting.length >= HASH_QUEUE_LIMIT) throw new HashQueueFull();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    // The slot passes straight to the next in line (running stays the same), or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** How many hashes run and wait right now (for tests and diagnostics). */
export function hashLoad(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  return withHashSlot(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(
          password.normalize('NFC'),
          salt,
          KEY_LENGTH,
          { N: 2 ** logN, r, p, maxmem: maxmem(logN, r, p) },
          (err, key) => (err ? reject(err) : resolve(key)),
        );
      }),
  );
}

/** Hashes at the current cost (SCRYPT_COST); `cost` only for tests of older stored hashes. */
export async function hashPassword(
  password: string,
  cost: { logN: number; r: number; p: number } = SCRYPT_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost.logN, cost.r, cost.p);
  return `scrypt$${cost.logN}$${cost.r}$${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const STORED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{32,128})$/;

/** Constant-time comparison of the derived key; a malformed stored hash never verifies. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = STORED.exec(stored);
  if (!m) return false;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  const key = await derive(password, Buffer.from(m[4]!, 'base64url'), logN, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Whether a stored hash was made at another cost than SCRYPT_COST (replace it after a good login). */
export function needsRehash(stored: string): boolean {
  const m = STORED.exec(stored);
  return (
    !m ||
    Number(m[1]) !== SCRYPT_COST.logN ||
    Number(m[2]) !== SCRYPT_COST.r ||
    Number(m[3]) !== SCRYPT_COST.p
  );
}

/** A hash of nothing anyone knows: verifying against it costs what a real check costs. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  if (decoy) return decoy;
  const made = hashPassword(randomBytes(18).toString('base64url'));
  decoy = made;
  // A decoy that failed (the hash queue was full) is made again next time.
  made.catch(() => {
    if (decoy === made) decoy = undefined;
  });
  return made;
}

/** A generated password: 20 characters of base64url (120 bits). */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}
