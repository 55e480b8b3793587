import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  newCallbackNonce,
  newRequestNonce,
  operatorCanonicalString,
  sha256Hex,
  signaturesMatch,
  signOperatorRequest,
  signWalletCallback,
  timestampFresh,
  verifyOperatorRequest,
  verifyWalletCallback,
  walletCanonicalString,
} from './index.js';

const vectors = JSON.parse(readFileSync(new URL('../test-vectors.json', import.meta.url), 'utf8')) as {
  operator: Array<{
    name: string;
    key: string;
    timestamp: string;
    nonce: string;
    method: string;
    pathAndQuery: string;
    body: string;
    body_sha256: string;
    canonical: string;
    signature: string;
  }>;
  wallet: Array<{
    name: string;
    secret: string;
    timestamp: string;
    nonce: string;
    body: string;
    canonical: string;
    signature: string;
  }>;
};

describe('published test vectors', () => {
  for (const v of vectors.operator) {
    test(`operator: ${v.name}`, () => {
      assert.equal(sha256Hex(v.body), v.body_sha256);
      assert.equal(operatorCanonicalString(v), v.canonical);
      assert.equal(signOperatorRequest(v.key, v), v.signature);
      const now = Number(v.timestamp);
      assert.deepEqual(
        verifyOperatorRequest(v.key, { timestamp: v.timestamp, nonce: v.nonce, signature: v.signature }, v, {
          nowSeconds: now,
        }),
        { ok: true },
      );
    });
  }
  for (const v of vectors.wallet) {
    test(`wallet: ${v.name}`, () => {
      assert.equal(walletCanonicalString(v).toString('utf8'), v.canonical);
      assert.equal(signWalletCallback(v.secret, v), v.signature);
      const headers = { timestamp: v.timestamp, nonce: v.nonce, signature: v.signature };
      assert.deepEqual(
        verifyWalletCallback(v.secret, headers, Buffer.from(v.body, 'utf8'), {
          nowSeconds: Number(v.timestamp),
        }),
        {
          ok: true,
        },
      );
    });
  }
  test('the empty body hashes the empty string', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('operator request verification', () => {
  const key = 'opk_live_key';
  const req = { method: 'POST', pathAndQuery: '/api/provider/v1/launch-url?x=1', body: '{"a":1}' };
  const now = 1_800_000_000;
  const sign = (over: Partial<typeof req> = {}, ts = String(now), nonce = 'abcdefghijklmnop') => ({
    timestamp: ts,
    nonce,
    signature: signOperatorRequest(key, { ...req, ...over, timestamp: ts, nonce }),
  });

  test('accepts a good signature, upper-cases the method', () => {
    const h = sign({ method: 'post' });
    assert.deepEqual(verifyOperatorRequest(key, h, req, { nowSeconds: now }), { ok: true });
  });
  test('accepts upper-case hex signatures', () => {
    const h = sign();
    assert.deepEqual(
      verifyOperatorRequest(key, { ...h, signature: h.signature.toUpperCase() }, req, { nowSeconds: now }),
      {
        ok: true,
      },
    );
  });
  test('rejects a changed body, path, query, method or key', () => {
    const h = sign();
    const bad = (r: typeof req, k = key) => verifyOperatorRequest(k, h, r, { nowSeconds: now });
    assert.deepEqual(bad({ ...req, body: '{"a":2}' }), { ok: false, reason: 'invalid_signature' });
    assert.deepEqual(bad({ ...req, pathAndQuery: '/api/provider/v1/launch-url?x=2' }), {
      ok: false,
      reason: 'invalid_signature',
    });
    assert.deepEqual(bad({ ...req, method: 'PUT' }), { ok: false, reason: 'invalid_signature' });
    assert.deepEqual(bad(req, 'other'), { ok: false, reason: 'invalid_signature' });
  });
  test('rejects timestamps outside the skew, in both directions, and malformed ones', () => {
    for (const ts of [String(now - 301), String(now + 301), '17e8', '', ' 1800000000', '-1']) {
      const h = sign({}, ts);
      assert.deepEqual(verifyOperatorRequest(key, h, req, { nowSeconds: now }), {
        ok: false,
        reason: 'stale_timestamp',
      });
    }
    const edge = sign({}, String(now - 300));
    assert.deepEqual(verifyOperatorRequest(key, edge, req, { nowSeconds: now }), { ok: true });
    const narrow = sign({}, String(now - 20));
    assert.deepEqual(verifyOperatorRequest(key, narrow, req, { nowSeconds: now, maxSkewSeconds: 10 }), {
      ok: false,
      reason: 'stale_timestamp',
    });
  });
  test('rejects nonces shorter than 16 or longer than 128 characters', () => {
    assert.equal(
      verifyOperatorRequest(key, sign({}, String(now), 'short'), req, { nowSeconds: now }).ok,
      false,
    );
    assert.equal(
      verifyOperatorRequest(key, sign({}, String(now), 'x'.repeat(129)), req, { nowSeconds: now }).ok,
      false,
    );
    assert.equal(
      verifyOperatorRequest(key, sign({}, String(now), 'x'.repeat(128)), req, { nowSeconds: now }).ok,
      true,
    );
  });
  test('missing headers are reported, never thrown', () => {
    assert.deepEqual(verifyOperatorRequest(key, {}, req), { ok: false, reason: 'missing_headers' });
    assert.deepEqual(verifyOperatorRequest(key, { timestamp: ['1'], nonce: 1, signature: null }, req), {
      ok: false,
      reason: 'missing_headers',
    });
  });
});

describe('constant-time comparison', () => {
  const good = signWalletCallback('s', { timestamp: '1', nonce: 'n', body: 'b' });
  test('answers false without throwing for wrong length or alphabet', () => {
    for (const bad of [
      '',
      'abc',
      good.slice(0, 63),
      good + '0',
      'z'.repeat(64),
      `${good.slice(0, 62)}é0`,
      null,
      42,
      {},
    ]) {
      assert.equal(signaturesMatch(good, bad), false);
    }
  });
  test('answers true only for the same bytes', () => {
    assert.equal(signaturesMatch(good, good), true);
    const flipped = (good[0] === '0' ? '1' : '0') + good.slice(1);
    assert.equal(signaturesMatch(good, flipped), false);
  });
});

describe('wallet callbacks', () => {
  const secret = 'wallet-secret';
  const body = '{"transaction_id":"t1","amount":1.5,"amount_minor":150}';
  const now = 1_800_000_000;
  test('nonces are 32 lower-case hex and fresh', () => {
    const a = newCallbackNonce();
    const b = newCallbackNonce();
    assert.match(a, /^[0-9a-f]{32}$/);
    assert.notEqual(a, b);
    // Drawn from a pooled 4 KB: across several refills every nonce, callback or request, is new.
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      for (const n of [newCallbackNonce(), newRequestNonce()]) {
        assert.match(n, /^[0-9a-f]{32}$/);
        seen.add(n);
      }
    }
    assert.equal(seen.size, 2000);
  });
  test('the signature covers the exact raw bytes (whitespace matters)', () => {
    const nonce = newCallbackNonce();
    const signature = signWalletCallback(secret, { timestamp: String(now), nonce, body });
    const h = { timestamp: String(now), nonce, signature };
    assert.equal(verifyWalletCallback(secret, h, body, { nowSeconds: now }).ok, true);
    assert.deepEqual(verifyWalletCallback(secret, h, body.replace(':', ': '), { nowSeconds: now }), {
      ok: false,
      reason: 'invalid_signature',
    });
    assert.deepEqual(verifyWalletCallback('other', h, body, { nowSeconds: now }), {
      ok: false,
      reason: 'invalid_signature',
    });
    assert.deepEqual(verifyWalletCallback(secret, h, body, { nowSeconds: now + 1000 }), {
      ok: false,
      reason: 'stale_timestamp',
    });
    assert.deepEqual(
      verifyWalletCallback(secret, { ...h, nonce: 'NOT-HEX-NONCE-0000000000000000000' }, body, {
        nowSeconds: now,
      }),
      {
        ok: false,
        reason: 'invalid_nonce',
      },
    );
  });
  test('timestampFresh rejects non-strings', () => {
    assert.equal(timestampFresh(1_800_000_000, now), false);
    assert.equal(timestampFresh(String(now), now), true);
  });
});
