import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, type Harness, startApi } from '@opi/testkit/harness';
import { HASH_CONCURRENCY, HASH_QUEUE_LIMIT, hashLoad, hashPassword, SCRYPT_COST } from './password.js';
import { ACCOUNT_DELAY_CAP_S, ACCOUNT_SLOWDOWN_AFTER, LOGIN_LIMITS } from './rate-limit.js';
import { createStaffAccount, PORTAL_SECRET } from './test-support/world.js';

// Issue 23 points 1 and 2 at the API: scrypt at OWASP's cost (N=2^17, r=8, p=1; every hash here
// is made and checked at that full cost, the production path) with old hashes replaced at the next
// good login; at most HASH_CONCURRENCY hashes at once under a login flood; failures counted per
// (account, address) so nobody can lock someone else's account, with a progressive slowdown per
// failing address once the account has many failures; and the client address taken from the socket
// unless its peer is one of TRUSTED_PROXIES (a forged X-Forwarded-For is neither counted nor audited).
let h: Harness;

before(async () => {
  h = await startApi({ STAFF_PORTAL_SECRET: PORTAL_SECRET });
});
after(async () => {
  await h?.close();
});

/** A login as the portal makes it: the browser's address forwarded with the portal secret. */
const loginFrom = (ip: string, username: string, password: string) =>
  call(h.base, 'POST', '/api/staff/v1/login', {
    body: { username, password },
    headers: { 'x-staff-portal': PORTAL_SECRET, 'x-staff-client-ip': ip },
  });

const storedHash = async (username: string) =>
  (
    await h.db.pool.query<{ password_hash: string }>(
      `SELECT password_hash FROM staff_users WHERE username = $1`,
      [username],
    )
  ).rows[0]!.password_hash;

async function account(username: string, password: string) {
  return createStaffAccount(h.base, { username, password, provider_role: 'viewer' });
}

describe('staff passwords at OWASP cost', () => {
  test('new hashes are scrypt N=2^17, r=8, p=1; an old 2^15 hash still verifies and is replaced at the next good login only', async (t) => {
    assert.deepEqual(SCRYPT_COST, { logN: 17, r: 8, p: 1 });
    const who = await account('hank', 'hank-password-0001');
    assert.match(await storedHash('hank'), /^scrypt\$17\$8\$1\$/);
    const started = Date.now();
    const ok = await loginFrom('10.20.0.1', 'hank', who.password);
    assert.equal(ok.status, 200, ok.text);
    const fullCostMs = Date.now() - started;

    // A hash from before issue 23 (N=2^15): it still opens the account, and is then replaced.
    const old = await hashPassword(who.password, { logN: 15, r: 8, p: 1 });
    await h.db.pool.query(`UPDATE staff_users SET password_hash = $1 WHERE username = 'hank'`, [old]);
    assert.equal((await loginFrom('10.20.0.2', 'hank', 'not-the-password')).status, 401);
    assert.equal(await storedHash('hank'), old, 'a failed login rehashes nothing');
    assert.equal((await loginFrom('10.20.0.2', 'hank', who.password)).status, 200);
    const rehashed = await storedHash('hank');
    assert.match(rehashed, /^scrypt\$17\$8\$1\$/);
    assert.notEqual(rehashed, old);
    assert.equal((await loginFrom('10.20.0.3', 'hank', who.password)).status, 200, 'the new hash verifies');
    t.diagnostic(`one login at full cost: ${fullCostMs} ms`);
  });

  test(`a login flood: at most ${HASH_CONCURRENCY} hashes at once, at most ${HASH_QUEUE_LIMIT} waiting; the rest answered 429 at once, never a 5xx`, async () => {
    await account('ivan', 'ivan-password-0001');
    let maxRunning = 0;
    let maxWaiting = 0;
    const sampler = setInterval(() => {
      const load = hashLoad();
      maxRunning = Math.max(maxRunning, load.running);
      maxWaiting = Math.max(maxWaiting, load.waiting);
    }, 2);
    const flood = 60;
    let answers: Awaited<ReturnType<typeof call>>[];
    try {
      answers = await Promise.all(
        Array.from({ length: flood }, (_, i) =>
          loginFrom(`10.30.${i >> 8}.${i & 255}`, 'ivan', `wrong-${i}`),
        ),
      );
    } finally {
      clearInterval(sampler);
    }
    const statuses = answers.map((a) => a.status);
    assert.ok(
      statuses.every((s) => s === 401 || s === 429),
      statuses.join(','),
    );
    const busy = answers.filter((a) => a.status === 429);
    assert.ok(busy.length >= 1, 'past the queue the attempt is refused');
    for (const b of busy) {
      assert.equal(b.headers.get('retry-after'), '1');
      assert.match(b.json.detail, /in progress/);
    }
    assert.ok(maxRunning <= HASH_CONCURRENCY, `at most ${HASH_CONCURRENCY} at once, saw ${maxRunning}`);
    assert.ok(maxRunning >= 1 && maxWaiting <= HASH_QUEUE_LIMIT, `waiting ${maxWaiting}`);
    assert.deepEqual(hashLoad(), { running: 0, waiting: 0 });
    // A refused attempt checked no password: it is not counted against the account.
    const { rows } = await h.db.pool.query<{ attempts: number }>(
      `SELECT attempts FROM staff_login_limits WHERE bucket = 'user:ivan'`,
    );
    assert.equal(rows[0]!.attempts, flood - busy.length);
  });
});

describe('login limits: nobody can lock someone else out', () => {
  test('failures from one address lock that address out of the account only; the owner elsewhere gets in', async () => {
    const who = await account('judy', 'judy-password-0001');
    for (let i = 0; i < LOGIN_LIMITS.pair; i++)
      assert.equal((await loginFrom('10.40.0.1', 'judy', 'wrong-password')).status, 401);
    const locked = await loginFrom('10.40.0.1', 'judy', who.password);
    assert.equal(locked.status, 429, locked.text);
    assert.ok(Number(locked.headers.get('retry-after')) > 800, 'until the 15-minute window ends');
    assert.match(locked.json.detail, /Too many login attempts/);
    assert.equal((await loginFrom('10.40.0.2', 'judy', who.password)).status, 200);
  });

  test(`after ${ACCOUNT_SLOWDOWN_AFTER} account failures each failing address waits 1, 2, 4 ... ${ACCOUNT_DELAY_CAP_S} s; a clean address gets in at once`, async () => {
    const who = await account('kate', 'kate-password-0001');
    // Someone hammers the account from two addresses up to the slowdown.
    for (const ip of ['10.50.0.1', '10.50.0.2'])
      for (let i = 0; i < ACCOUNT_SLOWDOWN_AFTER / 2; i++)
        assert.equal((await loginFrom(ip, 'kate', 'wrong-password')).status, 401);

    // Each further failure makes its address wait, longer each time.
    const waits: number[] = [];
    for (const ip of ['10.50.1.1', '10.50.1.2', '10.50.1.3']) {
      assert.equal((await loginFrom(ip, 'kate', 'wrong-password')).status, 401);
      const again = await loginFrom(ip, 'kate', who.password);
      assert.equal(again.status, 429, again.text);
      assert.match(again.json.detail, /many failed logins: wait/);
      waits.push(Number(again.headers.get('retry-after')));
    }
    assert.deepEqual(waits, [2, 4, 8]);
    // The wait is bounded.
    await h.db.pool.query(`UPDATE staff_login_limits SET attempts = 500 WHERE bucket = 'user:kate'`);
    assert.equal((await loginFrom('10.50.1.4', 'kate', 'wrong-password')).status, 401);
    const capped = await loginFrom('10.50.1.4', 'kate', who.password);
    assert.equal(capped.status, 429);
    assert.equal(Number(capped.headers.get('retry-after')), ACCOUNT_DELAY_CAP_S);

    // The owner, from an address with no failures on the account, gets in at once.
    const started = Date.now();
    const owner = await loginFrom('10.50.2.1', 'kate', who.password);
    assert.equal(owner.status, 200, owner.text);
    const ms = Date.now() - started;
    assert.ok(ms < 3_000, `prompt: ${ms} ms`);

    // A waiting address gets in once its wait is over (the refused attempt did not count).
    const { rows } = await h.db.pool.query<{ attempts: number }>(
      `SELECT attempts FROM staff_login_limits WHERE bucket = 'pair:10.50.1.1/kate'`,
    );
    assert.equal(rows[0]!.attempts, 1, 'the refused attempt is not a failure');
    await new Promise((r) => setTimeout(r, 2_100));
    assert.equal((await loginFrom('10.50.1.1', 'kate', who.password)).status, 200);
    const audit = await h.db.pool.query<{ detail: { rule?: string } }>(
      `SELECT detail FROM staff_audit_log WHERE username = 'kate' AND result = 'rate_limited'`,
    );
    assert.ok(audit.rows.length >= 4 && audit.rows.every((r) => r.detail.rule === 'slowdown'));
  });
});

describe('the client address is not taken from the client', () => {
  test(`a forged X-Forwarded-For without a trusted proxy: counted and audited as the socket's address (${LOGIN_LIMITS.ip} per address holds)`, async () => {
    for (let i = 0; i < LOGIN_LIMITS.ip; i++) {
      const res = await call(h.base, 'POST', '/api/staff/v1/login', {
        body: { username: `spray-${i}`, password: 'guess-guess-guess' },
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
      });
      assert.equal(res.status, 401, res.text);
    }
    const locked = await call(h.base, 'POST', '/api/staff/v1/login', {
      body: { username: 'spray-last', password: 'guess-guess-guess' },
      headers: { 'x-forwarded-for': '198.51.100.250' },
    });
    assert.equal(locked.status, 429, locked.text);
    const { rows } = await h.db.pool.query<{ client_ip: string }>(
      `SELECT DISTINCT client_ip FROM staff_audit_log WHERE username LIKE 'spray-%'`,
    );
    assert.deepEqual(
      rows.map((r) => r.client_ip),
      ['127.0.0.1'],
    );

    // Behind a proxy named in TRUSTED_PROXIES, its X-Forwarded-For names the client (the right-most
    // untrusted hop: what a client wrote further left is never read).
    const proxied = await startApi({ TRUSTED_PROXIES: '127.0.0.1' }, { db: h.db });
    try {
      const who = await account('liam', 'liam-password-0001');
      const res = await call(proxied.base, 'POST', '/api/staff/v1/login', {
        body: { username: 'liam', password: who.password },
        headers: { 'x-forwarded-for': '192.0.2.1, 203.0.113.9' },
      });
      assert.equal(res.status, 200, 'not the locked socket address');
      const session = await h.db.pool.query<{ client_ip: string }>(
        `SELECT s.client_ip FROM staff_sessions s JOIN staff_users u USING (staff_id) WHERE u.username = 'liam'`,
      );
      assert.equal(session.rows[0]!.client_ip, '203.0.113.9');
      const audit = await h.db.pool.query<{ client_ip: string }>(
        `SELECT client_ip FROM staff_audit_log WHERE username = 'liam'`,
      );
      assert.deepEqual(
        audit.rows.map((r) => r.client_ip),
        ['203.0.113.9'],
      );
    } finally {
      await proxied.close();
    }
  });
});
