import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  GB_MIN_CYCLE_INTERVAL_MS,
  GB_MIN_SPIN_INTERVAL_MS,
  GB_SLOT_STAKE_CAPS,
  gbSlotStakeCap,
  ISO_3166_1_ALPHA2,
  Jurisdiction,
  rulesFor,
} from './jurisdiction.js';
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

test('rulesFor: GB rules on every family; the reality check on every family', () => {
  assert.deepEqual(rulesFor('GB', 'prov_a', 60, { currency: 'GBP', ageBand: '25+' }), {
    jurisdiction: 'GB',
    min_spin_interval_ms: GB_MIN_SPIN_INTERVAL_MS,
    min_cycle_interval_ms: null,
    autoplay: false,
    turbo: false,
    reality_check_interval_seconds: 60,
    max_stake_minor: 500,
    age_band: '25+',
  });
  assert.equal(rulesFor('GB-SCT', 'prov_b', null).min_spin_interval_ms, 2500);
  assert.deepEqual(rulesFor('GB', 'prov_d', 60, { currency: 'GBP' }), {
    jurisdiction: 'GB',
    min_spin_interval_ms: null,
    min_cycle_interval_ms: GB_MIN_CYCLE_INTERVAL_MS,
    autoplay: false,
    turbo: false,
    reality_check_interval_seconds: 60,
    max_stake_minor: null,
    age_band: null,
  });
  assert.equal(rulesFor('GB-ENG', 'prov_c', null).min_cycle_interval_ms, 5000);
  assert.equal(rulesFor('GB', 'prov_c', null).autoplay, false);
  assert.equal(rulesFor('MT', 'prov_c', null).min_cycle_interval_ms, null);
  assert.equal(rulesFor('GB', 'prov_c', 90).reality_check_interval_seconds, 90);
  assert.equal(rulesFor(null, 'prov_d', 30).reality_check_interval_seconds, 30);
  assert.equal(rulesFor('GB', 'prov_c', null).reality_check_interval_seconds, null);
  assert.equal(rulesFor('CA-ON', 'prov_a', null).min_spin_interval_ms, null);
  assert.equal(rulesFor(null, 'prov_a', null).autoplay, true);
});

test('GB slot stake caps: per currency, 18-24 and an unknown age band get the lower cap', () => {
  assert.equal(rulesFor('GB', 'prov_a', null, { currency: 'GBP', ageBand: '18-24' }).max_stake_minor, 200);
  assert.equal(rulesFor('GB', 'prov_a', null, { currency: 'GBP' }).max_stake_minor, 200);
  assert.equal(rulesFor('GB', 'prov_a', null, { currency: 'GBP', ageBand: '25+' }).max_stake_minor, 500);
  assert.equal(gbSlotStakeCap('EUR', '25+'), GB_SLOT_STAKE_CAPS.EUR!.adult);
  assert.equal(gbSlotStakeCap('USD', null), GB_SLOT_STAKE_CAPS.USD!.young);
  assert.equal(gbSlotStakeCap('JPY', '25+'), undefined);
  assert.equal(rulesFor('GB', 'prov_a', null, { currency: 'JPY' }).max_stake_minor, null);
  assert.equal(rulesFor('MT', 'prov_a', null, { currency: 'GBP', ageBand: '18-24' }).max_stake_minor, null);
  assert.equal(rulesFor('MT', 'prov_a', null, { currency: 'GBP', ageBand: '18-24' }).age_band, '18-24');
  for (const bad of ['18', '18-25', '25', 'adult', '', 24, '2000-01-01'])
    assert.equal(
      LaunchUrlRequest.safeParse({ symbol: 's', external_player_id: 'p', age_band: bad }).success,
      false,
      String(bad),
    );
});
