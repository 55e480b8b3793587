import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CATALOG } from '../catalog.js';
import { cashoutAt, centsAt, crashMs, decidedAtMs, MAX_ROUND_MS, msToReach, phaseAt } from './curve.js';
import {
  CHAIN_LENGTH,
  CRASH_CAP_CENTS,
  chainSeed,
  commitmentOf,
  crashCentsFromDraw,
  crashPointCents,
  drawOf,
  formatMultiplier,
  hashTimes,
  isChainLink,
  parseMultiplier,
  payoutMinor,
  rtpBasisPoints,
} from './fairness.js';
import { simulateCrash } from './simulate.js';
import { type FairnessRecord, verifyFairness } from './verify.js';

const crashTitles = CATALOG.filter((e) => e.provider_id === 'prov_d');
const ROOT = 'a'.repeat(64);
const TWO_52 = 2n ** 52n;

describe('crash point derivation', () => {
  test('the catalog RTPs: dcrash1 and dcrash2 97.00, dcrash3 96.00', () => {
    assert.deepEqual(
      crashTitles.map((e) => [e.symbol, e.rtp]),
      [
        ['dcrash1', '97.00'],
        ['dcrash2', '97.00'],
        ['dcrash3', '96.00'],
      ],
    );
    assert.equal(rtpBasisPoints('97.00'), 9700);
    assert.throws(() => rtpBasisPoints('97'));
    assert.throws(() => rtpBasisPoints('100.00'));
  });

  test('the draw is the first 52 bits of HMAC-SHA256(seed, "client:nonce"), as documented', () => {
    const seed = createHash('sha256').update('vector').digest('hex');
    const h = createHmac('sha256', seed).update('player-seed:7').digest('hex');
    assert.equal(drawOf(seed, 'player-seed', 7), Number.parseInt(h.slice(0, 13), 16));
    const r = Number.parseInt(h.slice(0, 13), 16);
    const u = r / 2 ** 52;
    const approx = Math.max(1, Math.floor((100 * 0.97) / (1 - u)) / 100);
    assert.equal(
      crashPointCents(seed, 'player-seed', 7, '97.00'),
      Math.round(Math.min(approx, 10_000) * 100),
    );
  });

  test('a published vector (chain root a*64, position 1, client seed "vector", RTP 97.00)', () => {
    const seed = chainSeed(ROOT, CHAIN_LENGTH, 1);
    // Recomputable with nothing but OpenSSL: see docs/crash.md ("Crash point").
    assert.equal(seed, '5b3f6d0ad5ba1d707011dd3907ed485498be15ef22e9a3df1b8a102eb05941f9');
    assert.equal(commitmentOf(seed), hashTimes(ROOT, CHAIN_LENGTH));
    assert.equal(commitmentOf(seed), '075abaa67af45d615353eb0e1d286b4f170330201317626716f89346b26ad7d2');
    assert.equal(crashPointCents(seed, 'vector', 1, '97.00'), 352);
  });

  test('bounds: the floor is 1.00x, the cap 10,000.00x, exact at the edges', () => {
    assert.equal(crashCentsFromDraw(0, 9700), 100);
    assert.equal(crashCentsFromDraw(Number(TWO_52 - 1n), 9700), CRASH_CAP_CENTS);
    // u = 1/2 -> 0.97 / 0.5 = 1.94x
    assert.equal(crashCentsFromDraw(Number(TWO_52 / 2n), 9700), 194);
    assert.equal(crashCentsFromDraw(Number(TWO_52 / 2n), 9600), 192);
  });

  test('RTP is the same for every cash-out target (exact count over all 2^52 draws)', () => {
    for (const title of crashTitles) {
      const bp = BigInt(rtpBasisPoints(title.rtp));
      const targets = [101, 102, 150, 199, 200, 333, 1000, 4567, 10_000, 99_999, 500_000, CRASH_CAP_CENTS];
      for (let t = 101; t <= 2000; t += 7) targets.push(t);
      for (const t of targets) {
        // crash >= t  <=>  bp * 2^52 >= 100 t (2^52 - r): the number of such r is floor(bp 2^52 / (100 t)).
        const count = (bp * TWO_52) / (100n * BigInt(t));
        const rtp = (t / 100) * (Number(count) / 2 ** 52);
        // Off by at most one draw in 2^52, i.e. t / 2^52.
        assert.ok(
          Math.abs(rtp - Number(bp) / 10_000) <= (t / 100) * 2 ** -52 + 1e-15,
          `${title.symbol} ${t}: ${rtp}`,
        );
        // and the derivation agrees at the threshold
        const threshold = Number(TWO_52 - count);
        assert.ok(crashCentsFromDraw(threshold, Number(bp)) >= t);
        assert.ok(crashCentsFromDraw(threshold - 1, Number(bp)) < t);
      }
    }
  });

  test('multipliers print and parse with two decimals; payouts floor to minor units', () => {
    assert.equal(formatMultiplier(100), '1.00');
    assert.equal(formatMultiplier(1_000_000), '10000.00');
    assert.equal(parseMultiplier('2.5'), 250);
    assert.equal(parseMultiplier('2.345'), null);
    assert.equal(payoutMinor(333n, 150), 499n);
  });
});

describe('the seed chain', () => {
  test('each seed hashes to the one before it; the terminal hash closes the chain', () => {
    const terminal = hashTimes(ROOT, 10);
    for (let k = 1; k <= 10; k++) {
      const seed = chainSeed(ROOT, 10, k);
      assert.equal(commitmentOf(seed), chainSeed(ROOT, 10, k - 1));
      assert.ok(isChainLink(seed, k, terminal));
      assert.equal(isChainLink(seed, k + 1, terminal), false);
    }
    assert.equal(chainSeed(ROOT, 10, 10), ROOT);
    assert.throws(() => chainSeed(ROOT, 10, 11));
  });
});

describe('the multiplier curve', () => {
  test('starts at 1.00x and grows e^(0.00006 t)', () => {
    assert.equal(centsAt(0), 100);
    assert.equal(centsAt(11_552), 199);
    assert.equal(centsAt(11_553), 200);
    assert.equal(msToReach(200), 11_553);
    for (const c of [101, 150, 237, 1000, 123_456]) {
      const ms = msToReach(c);
      assert.ok(centsAt(ms) >= c && centsAt(ms - 1) < c, String(c));
    }
    assert.ok(MAX_ROUND_MS > 150_000 && MAX_ROUND_MS < 160_000);
  });

  test('a round shows its crash point, then crashes; 1.00x crashes at once', () => {
    assert.equal(crashMs(100), 0);
    const at = crashMs(237);
    assert.equal(centsAt(at - 1), 237);
    assert.equal(centsAt(at), 238);
    assert.deepEqual(phaseAt(237, at - 1, null), { state: 'running', cents: 237 });
    assert.deepEqual(phaseAt(237, at, null), { state: 'crashed', atMs: at });
  });

  test('cash-out: from 1.01x up to the crash point, never after', () => {
    assert.deepEqual(cashoutAt(500, 10), { ok: false, reason: 'too_early' });
    assert.deepEqual(cashoutAt(500, msToReach(150)), { ok: true, cents: 150 });
    assert.deepEqual(cashoutAt(500, crashMs(500) - 1), { ok: true, cents: 500 });
    assert.deepEqual(cashoutAt(500, crashMs(500)), { ok: false, reason: 'crashed' });
    assert.deepEqual(cashoutAt(100, 0), { ok: false, reason: 'crashed' });
  });

  test('an auto cash-out at or below the crash point wins at its target', () => {
    assert.deepEqual(phaseAt(300, msToReach(200), 200), {
      state: 'cashed_out',
      cents: 200,
      atMs: msToReach(200),
    });
    assert.deepEqual(phaseAt(300, crashMs(300), 300), {
      state: 'cashed_out',
      cents: 300,
      atMs: msToReach(300),
    });
    assert.deepEqual(phaseAt(300, crashMs(300), 301), { state: 'crashed', atMs: crashMs(300) });
    assert.equal(decidedAtMs(300, 200), msToReach(200));
    assert.equal(decidedAtMs(300, 400), crashMs(300));
  });
});

describe('RTP simulation (small, seeded)', () => {
  for (const title of crashTitles) {
    test(`${title.symbol}: every documented strategy within its 99.9% interval of ${title.rtp}`, () => {
      const sim = simulateCrash(title.symbol, title.rtp, 200_000, 20250101);
      const stored = Number(title.rtp) / 100;
      for (const s of sim.strategies) {
        assert.ok(
          Math.abs(s.rtp - stored) <= 3.291 * s.stdError,
          `${title.symbol} at ${formatMultiplier(s.targetCents)}x: ${s.rtp} vs ${stored} (se ${s.stdError})`,
        );
      }
      const instant = 1 - stored / 1.01;
      assert.ok(
        Math.abs(sim.instantCrashRate - instant) < 0.003,
        `instant crash rate ${sim.instantCrashRate}`,
      );
    });
  }
});

function record(overrides: Partial<FairnessRecord> = {}): FairnessRecord {
  const length = 50;
  const k = 3;
  const seed = chainSeed(ROOT, length, k);
  const crash = crashPointCents(seed, 'client-1', k, '97.00');
  return {
    scheme: 'crash-v1',
    round_id: 'r_test',
    symbol: 'dcrash1',
    rtp: '97.00',
    chain: { terminal_hash: hashTimes(ROOT, length), length },
    nonce: k,
    commitment: commitmentOf(seed),
    client_seed: 'client-1',
    server_seed: seed,
    crash_point: formatMultiplier(crash),
    state: 'crashed',
    cashout_multiplier: null,
    ...overrides,
  };
}

describe('verifier', () => {
  test('a genuine record verifies', () => {
    const v = verifyFairness(record());
    assert.equal(v.ok, true, JSON.stringify(v.checks));
  });

  test('a cash-out within the crash point verifies; above it does not', () => {
    const rec = record();
    const crash = parseMultiplier(rec.crash_point!)!;
    if (crash >= 101) {
      const ok = verifyFairness({
        ...rec,
        state: 'cashed_out',
        cashout_multiplier: '1.01',
        cashout_ms: msToReach(101),
      });
      assert.equal(ok.ok, true, JSON.stringify(ok.checks));
    }
    const bad = verifyFairness({
      ...rec,
      state: 'cashed_out',
      cashout_multiplier: formatMultiplier(crash + 1),
    });
    assert.equal(bad.ok, false);
  });

  test('tampering with any part fails', () => {
    const rec = record();
    const other = chainSeed(ROOT, 50, 4);
    assert.equal(verifyFairness({ ...rec, server_seed: other }).ok, false, 'another seed');
    assert.equal(verifyFairness({ ...rec, commitment: commitmentOf(other) }).ok, false, 'another commitment');
    assert.equal(verifyFairness({ ...rec, client_seed: 'client-2' }).ok, false, 'another client seed');
    assert.equal(verifyFairness({ ...rec, crash_point: '99.99' }).ok, false, 'another crash point');
    assert.equal(verifyFairness({ ...rec, nonce: 4 }).ok, false, 'another position');
    assert.equal(
      verifyFairness({ ...rec, chain: { ...rec.chain, terminal_hash: 'b'.repeat(64) } }).ok,
      false,
    );
    assert.equal(verifyFairness({ ...rec, server_seed: null }).ok, false, 'not revealed');
  });

  test('the CLI recomputes a crash point from a seed and checks the chain (exit 0), or fails (exit 1)', async () => {
    const rec = record();
    const cli = fileURLToPath(new URL('./verify-cli.ts', import.meta.url));
    const run = promisify(execFile);
    const args = [
      '--conditions=source',
      '--import',
      'tsx',
      cli,
      rec.server_seed!,
      '--client-seed',
      rec.client_seed,
      '--nonce',
      String(rec.nonce),
      '--symbol',
      'dcrash1',
      '--terminal',
      rec.chain.terminal_hash,
      '--commitment',
      rec.commitment,
    ];
    const ok = await run(process.execPath, args);
    assert.match(ok.stdout, new RegExp(`crash point +${rec.crash_point!.replace('.', '\\.')}x`));
    assert.match(ok.stdout, /\[ok\] +hashing the seed 3 time\(s\) gives the terminal hash/);
    const bad = await run(process.execPath, [...args.slice(0, -1), 'c'.repeat(64)]).catch((e) => e);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /\[FAIL\] SHA-256\(server seed\) = commitment/);
  });
});
