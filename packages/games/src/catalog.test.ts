import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CATALOG,
  type CatalogEntry,
  findEntry,
  launchPathFor,
  MULTI_STAGE_FAMILIES,
  PROVIDER_IDS,
  PROVIDERS,
  STORED_RTP,
} from './index.js';

const FEATURE_KEYS = ['bonus', 'buy_feature', 'collect', 'free_spins', 'special_bet'];
const BROWSERS = new Set(['chrome', 'safari', 'firefox', 'edge', 'chrome-android', 'safari-ios']);

function byProvider(id: string): CatalogEntry[] {
  return CATALOG.filter((e) => e.provider_id === id);
}

function must(symbolOrSlug: string): CatalogEntry {
  const entry = findEntry(symbolOrSlug);
  assert.ok(entry, `catalog entry ${symbolOrSlug}`);
  return entry;
}

describe('catalog identity', () => {
  test('has about twenty titles', () => {
    assert.ok(CATALOG.length >= 16 && CATALOG.length <= 24, `${CATALOG.length} titles`);
  });

  test('symbols and slugs are unique, and no slug shadows another entry symbol', () => {
    const symbols = CATALOG.map((e) => e.symbol);
    const slugs = CATALOG.map((e) => e.slug);
    assert.equal(new Set(symbols).size, symbols.length, 'duplicate symbol');
    assert.equal(new Set(slugs).size, slugs.length, 'duplicate slug');
    for (const e of CATALOG) {
      const other = CATALOG.find((o) => o !== e && o.symbol === e.slug);
      assert.equal(other, undefined, `slug ${e.slug} equals the symbol of ${other?.title}`);
    }
  });

  test('symbols and slugs are URL-safe', () => {
    for (const e of CATALOG) {
      assert.match(e.symbol, /^[a-z0-9_]{3,32}$/, e.symbol);
      assert.match(e.slug, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, e.slug);
      assert.ok(e.title.trim().length > 0 && e.title === e.title.trim(), e.symbol);
    }
  });

  test('provider ids are canonical and provider names follow the family', () => {
    for (const e of CATALOG) {
      assert.ok((PROVIDER_IDS as readonly string[]).includes(e.provider_id), e.provider_id);
      assert.equal(e.provider, PROVIDERS[e.provider_id].name, e.symbol);
      assert.equal(e.provider_tagline, PROVIDERS[e.provider_id].tagline, e.symbol);
      assert.equal(e.game_service_version, PROVIDERS[e.provider_id].game_service_version, e.symbol);
    }
    const names = PROVIDER_IDS.map((id) => PROVIDERS[id].name);
    assert.equal(new Set(names).size, names.length, 'provider names must differ per family');
  });

  test('installed versions are semver and assets name the symbol', () => {
    for (const e of CATALOG) {
      assert.match(e.installed_version, /^\d+\.\d+\.\d+$/, e.symbol);
      assert.equal(e.asset_symbol, e.symbol);
      assert.equal(e.asset_source, e.has_local_assets ? 'bundled' : 'generated-fallback', e.symbol);
      assert.match(e.asset_version, /^\d{4}\.\d{2}\.\d+$/, e.symbol);
    }
  });

  test('the catalog is deeply immutable', () => {
    assert.ok(Object.isFrozen(CATALOG));
    const first = CATALOG[0]!;
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.features) && Object.isFrozen(first.release));
    assert.throws(() => {
      (first as { title: string }).title = 'changed';
    }, TypeError);
    assert.throws(() => {
      (first.certified_browsers as string[]).push('netscape');
    }, TypeError);
  });
});

describe('features and special bets', () => {
  test('every entry has exactly the five boolean feature flags', () => {
    for (const e of CATALOG) {
      assert.deepEqual(Object.keys(e.features).sort(), FEATURE_KEYS, e.symbol);
      for (const key of FEATURE_KEYS) {
        assert.equal(
          typeof (e.features as unknown as Record<string, unknown>)[key],
          'boolean',
          `${e.symbol}.${key}`,
        );
      }
    }
  });

  test('special_bet flag and special_bet_profile agree', () => {
    let profiles = 0;
    for (const e of CATALOG) {
      assert.equal(e.features.special_bet, e.special_bet_profile !== null, e.symbol);
      const p = e.special_bet_profile;
      if (!p) continue;
      profiles++;
      assert.equal(p.symbol, e.symbol);
      assert.equal(p.service_version, e.game_service_version);
      assert.ok(Number.isInteger(p.buttons) && p.buttons >= 1, `${e.symbol} buttons`);
      assert.ok(p.bls.length > 0, `${e.symbol} bls`);
      for (const [i, bl] of p.bls.entries()) {
        assert.ok(Number.isInteger(bl) && bl > 0, `${e.symbol} bl ${bl}`);
        if (i > 0) assert.ok(bl > p.bls[i - 1]!, `${e.symbol} bls must ascend`);
      }
      assert.ok(p.bls.includes(p.default_bl), `${e.symbol} default_bl not in bls`);
      assert.ok(p.cver.length > 0);
    }
    assert.ok(profiles >= 2, 'some prov_a slots carry special bet profiles');
  });

  test('prov_a has slots with buy feature and special bets', () => {
    const a = byProvider('prov_a');
    assert.ok(a.some((e) => e.features.buy_feature));
    assert.ok(a.filter((e) => e.special_bet_profile !== null).length >= 2);
  });
});

describe('composition per family', () => {
  test('prov_a: six operator-wallet video slots', () => {
    const a = byProvider('prov_a');
    assert.equal(a.length, 6);
    for (const e of a) {
      assert.equal(e.family, 'video-slot', e.symbol);
      assert.equal(e.integration_mode, 'operator-wallet', e.symbol);
    }
  });

  test('prov_b: four operator-wallet video slots, gated by the family switch', () => {
    const b = byProvider('prov_b');
    assert.equal(b.length, 4);
    for (const e of b) {
      assert.equal(e.family, 'video-slot', e.symbol);
      assert.equal(e.integration_mode, 'operator-wallet', e.symbol);
      assert.equal(e.live_catalog_enabled, false, `${e.symbol}: the switch is off by default`);
      if (e.release.status === 'accepted') assert.equal(e.launch_status, 'switch-gated');
    }
  });

  test('prov_c: five native titles including multi-stage mines and hilo, wallet default off', () => {
    const c = byProvider('prov_c');
    assert.equal(c.length, 5);
    const families = new Set(c.map((e) => e.family));
    for (const f of MULTI_STAGE_FAMILIES) assert.ok(families.has(f), `missing ${f}`);
    assert.ok(families.has('mines') && families.has('hilo'));
    for (const e of c) {
      assert.notEqual(e.family, 'video-slot');
      assert.notEqual(e.family, 'crash');
      assert.equal(e.operator_wallet_default, false, `${e.symbol}: per-title flag defaults off`);
      assert.equal(e.live_catalog_enabled, false, e.symbol);
      assert.equal(typeof e.demo_enable, 'boolean', e.symbol);
    }
    const demo = c.filter((e) => e.demo_enable === true);
    assert.equal(demo.length, 2, 'exactly two titles are meant to be switched on in the demo');
    for (const e of demo) assert.equal(e.integration_mode, 'operator-wallet', e.symbol);
    assert.ok(
      c.some((e) => e.integration_mode === 'sandbox-only'),
      'a prov_c sandbox title',
    );
  });

  test('demo_enable exists only on prov_c', () => {
    for (const e of CATALOG) {
      if (e.provider_id !== 'prov_c') assert.ok(!('demo_enable' in e), e.symbol);
    }
  });

  test('prov_d: exactly three crash titles — two opted-in operator-wallet, one demo-only', () => {
    const d = byProvider('prov_d');
    assert.equal(d.length, 3);
    for (const e of d) assert.equal(e.family, 'crash', e.symbol);
    const wallet = d.filter((e) => e.integration_mode === 'operator-wallet');
    const demo = d.filter((e) => e.integration_mode === 'demo-only');
    assert.equal(wallet.length, 2);
    assert.equal(demo.length, 1);
    for (const e of wallet) assert.equal(e.operator_wallet_default, true, `${e.symbol} is opted in`);
    assert.equal(demo[0]!.operator_wallet_default, false);
    assert.equal(CATALOG.filter((e) => e.family === 'crash').length, 3, 'crash is a prov_d lobby label only');
  });

  test('crash currencies: USD; USD/EUR/GBP; operator default (null) for the demo', () => {
    const d = byProvider('prov_d');
    const wallet = d.filter((e) => e.integration_mode === 'operator-wallet');
    const lists = wallet.map((e) => e.crash_currencies).sort((x, y) => (x?.length ?? 0) - (y?.length ?? 0));
    assert.deepEqual(lists, [['USD'], ['USD', 'EUR', 'GBP']]);
    const demo = d.find((e) => e.integration_mode === 'demo-only')!;
    assert.ok('crash_currencies' in demo);
    assert.equal(demo.crash_currencies, null);
  });

  test('crash_currencies appears on crash titles only, as ISO-style codes', () => {
    for (const e of CATALOG) {
      assert.equal('crash_currencies' in e, e.family === 'crash', e.symbol);
      for (const c of e.crash_currencies ?? []) assert.match(c, /^[A-Z]{3}$/);
    }
  });

  test('lines only on video slots, as positive integers', () => {
    for (const e of CATALOG) {
      if (e.family === 'video-slot') {
        assert.ok(Number.isInteger(e.lines) && (e.lines ?? 0) > 0, `${e.symbol} lines`);
      } else {
        assert.ok(!('lines' in e), `${e.symbol} must not declare lines`);
      }
    }
  });

  test('sandbox-only: at least two titles in total', () => {
    assert.ok(CATALOG.filter((e) => e.integration_mode === 'sandbox-only').length >= 2);
  });

  test('certified browsers are known, unique and non-empty', () => {
    for (const e of CATALOG) {
      assert.ok(e.certified_browsers.length > 0, e.symbol);
      assert.equal(new Set(e.certified_browsers).size, e.certified_browsers.length, e.symbol);
      for (const b of e.certified_browsers) assert.ok(BROWSERS.has(b), `${e.symbol}: ${b}`);
    }
  });
});

describe('rtp (stored metadata)', () => {
  test('every rtp is a two-decimal string taken from STORED_RTP, and STORED_RTP has no strays', () => {
    for (const e of CATALOG) {
      assert.match(e.rtp, /^\d{2}\.\d{2}$/, e.symbol);
      assert.equal(e.rtp, (STORED_RTP as Record<string, string>)[e.symbol], e.symbol);
    }
    assert.deepEqual(Object.keys(STORED_RTP).sort(), CATALOG.map((e) => e.symbol).sort());
  });

  test('slot rtp is plausible (94–97%), every rtp below 99%', () => {
    for (const e of CATALOG) {
      const rtp = Number(e.rtp);
      if (e.family === 'video-slot') assert.ok(rtp >= 94 && rtp <= 97, `${e.symbol} ${e.rtp}`);
      assert.ok(rtp > 90 && rtp < 99, `${e.symbol} ${e.rtp}`);
    }
  });
});

describe('release registry records', () => {
  test('at least one blocked release, including a prov_a slot', () => {
    assert.ok(CATALOG.some((e) => e.release.status === 'blocked'));
    const blockedSlot = byProvider('prov_a').find((e) => e.release.status === 'blocked');
    assert.ok(blockedSlot, 'a prov_a title exercises the registry');
    assert.equal(blockedSlot.integration_mode, 'operator-wallet');
    assert.equal(blockedSlot.launch_status, 'release-blocked');
    assert.equal(blockedSlot.live_catalog_enabled, false);
  });

  test('accepted records carry evidence and an identity for the installed version; blocked ones reasons', () => {
    for (const e of CATALOG) {
      const r = e.release;
      assert.ok(r.detail.includes(e.installed_version), `${e.symbol} detail names the version`);
      if (r.status === 'accepted') {
        assert.deepEqual(r.reasons, [], e.symbol);
        assert.ok(r.evidence.length > 0, e.symbol);
        assert.ok(r.deployment_identity?.includes(`/${e.symbol}@${e.installed_version}+`), e.symbol);
        assert.ok(r.deployment_identity?.startsWith(`${e.provider_id}/`), e.symbol);
      } else {
        assert.equal(r.status, 'blocked');
        assert.ok(r.reasons.length > 0 && r.reasons.every((x) => x.length > 0), e.symbol);
        assert.equal(r.deployment_identity, null, e.symbol);
      }
    }
  });

  test('non-production builds are never accepted nor live', () => {
    for (const e of CATALOG) {
      if (e.integration_mode === 'operator-wallet') continue;
      assert.equal(e.release.status, 'blocked', e.symbol);
      assert.equal(e.live_catalog_enabled, false, e.symbol);
      assert.equal(e.launch_status, e.integration_mode === 'demo-only' ? 'demo' : 'sandbox');
    }
  });

  test('live by default only with operator wallet, accepted release and default-on transport', () => {
    const live = CATALOG.filter((e) => e.live_catalog_enabled);
    assert.ok(live.length > 0);
    for (const e of live) {
      assert.equal(e.integration_mode, 'operator-wallet', e.symbol);
      assert.equal(e.release.status, 'accepted', e.symbol);
      assert.equal(e.operator_wallet_default, true, e.symbol);
      assert.ok(e.provider_id === 'prov_a' || e.provider_id === 'prov_d', e.symbol);
      assert.equal(e.launch_status, 'ready');
    }
    // both opted-in crash titles are live by default
    assert.equal(live.filter((e) => e.provider_id === 'prov_d').length, 2);
  });
});

describe('findEntry and launchPathFor', () => {
  test('finds by symbol and by slug, exactly', () => {
    for (const e of CATALOG) {
      assert.equal(findEntry(e.symbol), e);
      assert.equal(findEntry(e.slug), e);
    }
    for (const miss of ['', 'nope', '__proto__', 'constructor', ' vs20emberfox', 'VS20EMBERFOX']) {
      assert.equal(findEntry(miss), undefined, JSON.stringify(miss));
    }
  });

  test('slot families launch through gs2c with the symbol', () => {
    for (const e of [...byProvider('prov_a'), ...byProvider('prov_b')]) {
      assert.equal(launchPathFor(e), `/gs2c/html5Game.do?symbol=${e.symbol}`);
    }
    assert.equal(launchPathFor(must('vs20emberfox')), '/gs2c/html5Game.do?symbol=vs20emberfox');
  });

  test('prov_c launches under /native/<slug>/, sandbox titles have no path', () => {
    for (const e of byProvider('prov_c')) {
      const expected = e.integration_mode === 'operator-wallet' ? `/native/${e.slug}/` : null;
      assert.equal(launchPathFor(e), expected, e.symbol);
    }
    assert.equal(launchPathFor(must('cnmines')), '/native/ember-mines/');
  });

  test('prov_d launches under /games/<slug>/, the demo has no path', () => {
    for (const e of byProvider('prov_d')) {
      const expected = e.integration_mode === 'operator-wallet' ? `/games/${e.slug}/` : null;
      assert.equal(launchPathFor(e), expected, e.symbol);
    }
    assert.equal(launchPathFor(must('dcrash3')), null);
  });

  test('every demo-only and sandbox-only entry has a null launch path; all others a path', () => {
    for (const e of CATALOG) {
      const path = launchPathFor(e);
      if (e.integration_mode === 'operator-wallet') assert.equal(typeof path, 'string', e.symbol);
      else assert.equal(path, null, e.symbol);
    }
  });
});
