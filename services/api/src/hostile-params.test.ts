import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

/*
 * Values PostgreSQL would refuse never reach it (issue 17): the reported 500s of the audit API (a
 * date-time offset past PostgreSQL's ±15:59, a year 0000) and their class — cursors carrying
 * out-of-range instants or garbage, integers past int8 (a launch coin), NUL characters — on the
 * operator audit reads, the staff API that shares their parsing, and the launch. Each is a 422
 * naming the field, or (for a value that is valid RFC 3339 but was mishandled) a 200.
 */

let h: Harness;
let key = '';
let staffToken = '';
const OP = 'op_hostile';
const SLOT = CATALOG.find(
  (e) =>
    e.provider_id === 'prov_a' && e.release.status === 'accepted' && e.integration_mode === 'operator-wallet',
)!.symbol;

before(async () => {
  h = await startApi({ STAFF_PORTAL_SECRET: 'portal-secret-for-the-hostile-tests-0123' });
  key = (await createOperator(h.base, OP)).key;
  await assign(h.base, OP, [SLOT]);
  const staff = await call(h.base, 'POST', '/api/admin/v1/staff', {
    key: ADMIN_KEY,
    sign: true,
    body: { username: 'hostile.admin', provider_role: 'admin', password: 'hostile-password-1234' },
  });
  assert.equal(staff.status, 201, staff.text);
  const login = await call(h.base, 'POST', '/api/staff/v1/login', {
    body: { username: 'hostile.admin', password: 'hostile-password-1234' },
  });
  assert.equal(login.status, 200, login.text);
  staffToken = login.json.data.token;
});
after(async () => {
  await h?.close();
});

const audit = (path: string) => call(h.base, 'GET', `/api/operator/v1${path}`, { key, sign: true });
const staff = (path: string) =>
  call(h.base, 'GET', `/api/staff/v1/operators/${OP}${path}`, {
    headers: { authorization: `Bearer ${staffToken}` },
  });

/** A 422 whose detail names `field` of the query. */
function assert422(res: { status: number; json: any; text: string }, field: string, what: string) {
  assert.equal(res.status, 422, `${what}: ${res.status} ${res.text}`);
  assert.ok(Array.isArray(res.json.detail), `${what}: ${res.text}`);
  assert.ok(
    res.json.detail.some((d: { loc: unknown[] }) => d.loc[0] === 'query' && d.loc[1] === field),
    `${what}: the detail names query.${field}: ${res.text}`,
  );
}

const cursorOf = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('date-time parameters', () => {
  test('the reported cases: an offset past ±15:59 is a valid RFC 3339 instant (200, read in UTC)', async () => {
    const enc = encodeURIComponent('2026-01-17T11:27:59+18:06');
    const rec = await audit(`/reconciliation?from=${enc}`);
    assert.equal(rec.status, 200, rec.text);
    assert.equal(rec.json.data.from, '2026-01-16T17:21:59Z', 'the window bound is answered in UTC');
    const csv = await audit(`/reconciliation.csv?to=${enc}`);
    assert.equal(csv.status, 200, csv.text);
    for (const path of ['/rounds', '/transactions']) {
      const res = await audit(`${path}?from=${enc}&to=${encodeURIComponent('2026-01-17T23:59:59-23:59')}`);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    const charts = await staff(`/charts?to=${enc}`);
    assert.equal(charts.status, 200, charts.text);
  });

  test('the reported cases: year 0000 and other instants outside 1970..9999 are 422 naming the field', async () => {
    const outside = [
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '1969-12-31T23:59:59.999999Z',
      '1970-01-01T00:59:59+01:00',
      '9999-12-31T23:59:59-15:59',
      '9999-12-31T23:00:00-01:00',
    ];
    for (const value of outside) {
      const v = encodeURIComponent(value);
      for (const field of ['from', 'to']) {
        for (const path of ['/rounds', '/transactions', '/reconciliation', '/reconciliation.csv']) {
          assert422(await audit(`${path}?${field}=${v}`), field, `${path}?${field}=${value}`);
        }
        for (const path of ['/charts', '/reconciliation', '/rounds', '/stuck']) {
          assert422(await staff(`${path}?${field}=${v}`), field, `staff ${path}?${field}=${value}`);
        }
      }
    }
  });

  test('the bounds themselves, fractions and offsets are accepted', async () => {
    for (const value of [
      '1970-01-01T00:00:00Z',
      '1970-01-01T01:00:00+01:00',
      '9999-12-31T23:59:59.999999Z',
      '9999-12-31T23:59:59.9999999999Z',
      '2026-02-28T23:59:59.123456789+14:00',
    ]) {
      const v = encodeURIComponent(value);
      for (const path of ['/rounds', '/transactions', '/reconciliation', '/reconciliation.csv']) {
        const res = await audit(`${path}?from=${v}&to=${v}`);
        assert.equal(res.status, 200, `${path} ${value}: ${res.text}`);
      }
      const charts = await staff(`/charts?to=${v}`);
      assert.equal(charts.status, 200, `charts ${value}: ${charts.text}`);
    }
    const rec = await audit(
      `/reconciliation?from=${encodeURIComponent('2026-02-28T23:59:59.123456789+14:00')}`,
    );
    assert.equal(rec.json.data.from, '2026-02-28T09:59:59.123456Z', 'microseconds kept, the rest cut');
  });

  test('not RFC 3339 (no offset, a day that does not exist, second 60) is 422', async () => {
    for (const value of ['2026-01-01T00:00:00', '2026-02-30T00:00:00Z', '2026-01-01T00:00:60Z', 'now']) {
      assert422(await audit(`/rounds?from=${encodeURIComponent(value)}`), 'from', value);
    }
  });
});

describe('cursors, integers and text PostgreSQL would refuse', () => {
  test('a cursor past int8, past the last instant, of garbage or of JSON is 422 naming cursor', async () => {
    const cursors = [
      cursorOf('9999999999999999999|r_x'),
      cursorOf('9223372036854775807|r_x'),
      cursorOf('253402300800000000|r_x'),
      cursorOf('{"micros":1,"id":"x"}'),
      cursorOf('1|'),
      cursorOf('1|a\u0000b'),
      '!!!!',
      '%ED%A0%80',
      'x'.repeat(400),
    ];
    for (const c of cursors) {
      for (const path of ['/rounds', '/transactions']) {
        assert422(await audit(`${path}?cursor=${c}`), 'cursor', `${path} cursor ${c}`);
      }
      assert422(await staff(`/sessions?cursor=${c}`), 'cursor', `staff sessions cursor ${c}`);
      assert422(await staff(`/rounds?cursor=${c}`), 'cursor', `staff rounds cursor ${c}`);
    }
    // A cursor this API could have written (an instant in range) is a page, even if empty.
    const ok = await audit(`/rounds?cursor=${cursorOf('1767225600000000|r_x')}`);
    assert.equal(ok.status, 200, ok.text);
  });

  test('limits past int8 or not integers, NUL characters and lone surrogates are 422', async () => {
    for (const limit of ['99999999999999999999', '9223372036854775808', '1e400', '-0', '2.5', '']) {
      assert422(await audit(`/rounds?limit=${limit}`), 'limit', `limit=${limit}`);
      assert422(await staff(`/sessions?limit=${limit}`), 'limit', `staff limit=${limit}`);
      assert422(await staff(`/audit-log?limit=${limit}`), 'limit', `staff audit-log limit=${limit}`);
    }
    for (const field of ['session_id', 'player_id', 'round_id']) {
      assert422(await audit(`/transactions?${field}=a%00b`), field, `${field} with NUL`);
    }
    assert422(await audit('/rounds?game_symbol=%00'), 'game_symbol', 'game_symbol NUL');
    assert422(await staff('/audit-log?action=%00'), 'action', 'staff action NUL');
    assert422(await staff('/catalog?family=x%00'), 'family', 'staff family NUL');
    // Bytes that are not UTF-8 arrive as U+FFFD (a real character): an empty page, not an error.
    const bad = await audit('/rounds?player_id=%ED%A0%80%FF');
    assert.equal(bad.status, 200, bad.text);
  });
});

describe('launch', () => {
  test('a coin past int8 in minor units is 422 naming body.coin (found by the fuzzer: a 500)', async () => {
    const launch = (coin: unknown) =>
      call(h.base, 'POST', '/api/provider/v1/launch-url', {
        key,
        sign: true,
        body: { symbol: SLOT, external_player_id: 'hostile-coin', currency: 'EUR', coin },
      });
    for (const coin of [2 ** 63, 9.3e18, 1e17, '1e20', '92233720368547758.08']) {
      const res = await launch(coin);
      assert.equal(res.status, 422, `coin ${coin}: ${res.status} ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['body', 'coin'], res.text);
    }
    const ok = await launch(1e16);
    assert.equal(ok.status, 200, ok.text);
  });
});
