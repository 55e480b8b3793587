import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GB_MIN_SPIN_INTERVAL_MS, ISO_3166_1_ALPHA2, Jurisdiction, rulesFor } from './jurisdiction.js';
import { LaunchUrlRequest } from './launch.js';

test('ISO 3166-1 alpha-2: 249 distinct upper-case codes', () => {
  assert.equal(ISO_3166_1_ALPHA2.length, 249);
  assert.equal(new Set(ISO_3166_1_ALPHA2).size, 249);
  for (const c of ISO_3166_1_ALPHA2) assert.match(c, /^[A-Z]{2}$/);
});

test('Jurisdiction: a country or a subdivision of one, upper case', () => {
  for (const ok of ['GB', 'CA-ON', 'US-NJ', 'GB-ENG', 'MT', 'DE-BY', 'FR-75'])
    assert.equal(Jurisdiction.safeParse(ok).success, true, ok);
  for (const bad of ['gb', 'UK', 'XX', 'GBR', 'CA_ON', 'CA-', 'CA-ONTARIO', ' GB', 'GB ', '', 'G', 44, null])
    assert.equal(Jurisdiction.safeParse(bad).success, false, String(bad));
  const launch = LaunchUrlRequest.safeParse({ symbol: 's', external_player_id: 'p', jurisdiction: 'uk' });
  assert.equal(launch.success, false);
  assert.deepEqual(launch.error?.issues[0]?.path, ['jurisdiction']);
});

test('rulesFor: GB slot rules on slot families only; the reality check on every family', () => {
  assert.deepEqual(rulesFor('GB', 'prov_a', 60), {
    jurisdiction: 'GB',
    min_spin_interval_ms: GB_MIN_SPIN_INTERVAL_MS,
    autoplay: false,
    turbo: false,
    reality_check_interval_seconds: 60,
  });
  assert.equal(rulesFor('GB-SCT', 'prov_b', null).min_spin_interval_ms, 2500);
  assert.deepEqual(rulesFor('GB', 'prov_d', 60), {
    jurisdiction: 'GB',
    min_spin_interval_ms: null,
    autoplay: true,
    turbo: true,
    reality_check_interval_seconds: 60,
  });
  assert.equal(rulesFor('GB', 'prov_c', 90).reality_check_interval_seconds, 90);
  assert.equal(rulesFor(null, 'prov_d', 30).reality_check_interval_seconds, 30);
  assert.equal(rulesFor('GB', 'prov_c', null).reality_check_interval_seconds, null);
  assert.equal(rulesFor('CA-ON', 'prov_a', null).min_spin_interval_ms, null);
  assert.equal(rulesFor(null, 'prov_a', null).autoplay, true);
});
