import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkReturnUrl, normalizeDevice, parseCoin, resolveCurrency } from './rules.js';

const operator = { default_currency: 'EUR', allowed_currencies: ['EUR', 'USD', 'JPY'] };
const value = <T>(r: { ok: true; value: T } | { ok: false }) => (r.ok ? r.value : undefined);

describe('currency', () => {
  test('defaults to the operator currency; must be allowed for the slot and native families', () => {
    for (const provider_id of ['prov_a', 'prov_b', 'prov_c'] as const) {
      const game = { provider_id, crash_currencies: null };
      assert.equal(value(resolveCurrency({ requested: undefined, operator, game })), 'EUR');
      assert.equal(value(resolveCurrency({ requested: 'JPY', operator, game })), 'JPY');
      assert.deepEqual(resolveCurrency({ requested: 'GBP', operator, game }).ok, false);
    }
  });
  test('falls back to USD when the operator has no default', () => {
    const r = resolveCurrency({
      requested: undefined,
      operator: { default_currency: '', allowed_currencies: ['USD'] },
      game: { provider_id: 'prov_a', crash_currencies: null },
    });
    assert.equal(value(r), 'USD');
  });
  test('crash title 1: USD only; crash title 2: USD, EUR, GBP', () => {
    const t1 = { provider_id: 'prov_d' as const, crash_currencies: ['USD'] };
    const t2 = { provider_id: 'prov_d' as const, crash_currencies: ['USD', 'EUR', 'GBP'] };
    assert.equal(value(resolveCurrency({ requested: 'USD', operator, game: t1 })), 'USD');
    assert.equal(resolveCurrency({ requested: 'EUR', operator, game: t1 }).ok, false);
    assert.equal(
      resolveCurrency({ requested: undefined, operator, game: t1 }).ok,
      false,
      'EUR default is refused',
    );
    for (const c of ['USD', 'EUR', 'GBP'])
      assert.equal(value(resolveCurrency({ requested: c, operator, game: t2 })), c);
    assert.equal(resolveCurrency({ requested: 'JPY', operator, game: t2 }).ok, false);
  });
  test('other crash titles: the operator default currency only', () => {
    const other = { provider_id: 'prov_d' as const, crash_currencies: null };
    assert.equal(value(resolveCurrency({ requested: undefined, operator, game: other })), 'EUR');
    assert.equal(value(resolveCurrency({ requested: 'EUR', operator, game: other })), 'EUR');
    const r = resolveCurrency({ requested: 'USD', operator, game: other });
    assert.deepEqual(r.ok ? null : r.field, 'currency');
  });
});

describe('return_url', () => {
  test('https is fine everywhere; absent is fine', () => {
    for (const f of ['prov_a', 'prov_b', 'prov_c', 'prov_d'] as const) {
      assert.equal(
        value(checkReturnUrl('https://casino.example/lobby?x=1', f, true)),
        'https://casino.example/lobby?x=1',
      );
      assert.equal(value(checkReturnUrl(undefined, f, true)), null);
    }
  });
  test('http: slots always, native outside production, crash on loopback only', () => {
    assert.ok(checkReturnUrl('http://casino.example/', 'prov_a', true).ok);
    assert.ok(checkReturnUrl('http://casino.example/', 'prov_b', true).ok);
    assert.equal(checkReturnUrl('http://casino.example/', 'prov_c', true).ok, false);
    assert.ok(checkReturnUrl('http://casino.example/', 'prov_c', false).ok);
    assert.equal(checkReturnUrl('http://casino.example/', 'prov_d', false).ok, false);
    for (const host of ['127.0.0.1:9000', 'localhost', '[::1]:8080', '127.8.9.10']) {
      assert.ok(checkReturnUrl(`http://${host}/done`, 'prov_d', true).ok, host);
    }
  });
  test('credentials, control characters, other schemes and relative URLs are refused', () => {
    for (const bad of [
      'https://user:pw@casino.example/',
      'https://user@casino.example/',
      'https://casino.example/\nSet-Cookie: x',
      'https://casino.example/\u0000',
      'javascript:alert(1)',
      'ftp://casino.example/',
      '/relative',
      `https://casino.example/${'a'.repeat(2100)}`,
    ]) {
      assert.equal(checkReturnUrl(bad, 'prov_a', false).ok, false, bad);
    }
  });
});

describe('device', () => {
  test('tablet becomes mobile for the slot families only; desktop by default', () => {
    assert.equal(normalizeDevice('tablet', 'prov_a'), 'mobile');
    assert.equal(normalizeDevice('tablet', 'prov_b'), 'mobile');
    assert.equal(normalizeDevice('tablet', 'prov_c'), 'tablet');
    assert.equal(normalizeDevice('tablet', 'prov_d'), 'tablet');
    assert.equal(normalizeDevice(undefined, 'prov_a'), 'desktop');
    assert.equal(normalizeDevice('mobile', 'prov_d'), 'mobile');
  });
});

describe('coin', () => {
  test('prov_a/prov_b: finite and greater than zero, as a number or a string, in exact minor units', () => {
    assert.equal(value(parseCoin(0.1, 'prov_a', 'EUR')), 10n);
    assert.equal(value(parseCoin('0.25', 'prov_b', 'EUR')), 25n);
    assert.equal(value(parseCoin(5, 'prov_a', 'JPY')), 5n);
    assert.equal(value(parseCoin('1e-2', 'prov_a', 'EUR')), 1n, 'exponent strings are numbers too');
    assert.equal(value(parseCoin('1e3', 'prov_a', 'EUR')), 100000n);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '0', 'abc', '', '0.001', '1e-3', ' ']) {
      assert.equal(parseCoin(bad as number | string, 'prov_a', 'EUR').ok, false, String(bad));
    }
    assert.equal(parseCoin(0.5, 'prov_a', 'JPY').ok, false, 'no fraction in JPY');
  });
  test('a coin past int8 in minor units is refused (sessions.coin_minor is int8), not a database error', () => {
    assert.equal(value(parseCoin(1e16, 'prov_a', 'EUR')), 10n ** 18n, 'within int8: accepted');
    for (const big of [2 ** 63, 9.3e18, 1e17, '92233720368547758.08', '1e20']) {
      const r = parseCoin(big, 'prov_a', 'EUR');
      assert.deepEqual(r.ok ? r : { ok: r.ok, field: r.field }, { ok: false, field: 'coin' }, String(big));
    }
    assert.equal(parseCoin(1e19, 'prov_b', 'JPY').ok, false);
  });
  test('prov_c and prov_d ignore it', () => {
    assert.equal(value(parseCoin(-5, 'prov_c', 'EUR')), null);
    assert.equal(value(parseCoin('junk', 'prov_d', 'EUR')), null);
    assert.equal(value(parseCoin(undefined, 'prov_a', 'EUR')), null);
  });
});
