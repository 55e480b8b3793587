import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOG, SYMBOL_NAMES } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { escapeHtml, pageLang } from './page-render.js';
import { PAGE_CSP } from './page-routes.js';

// The page as HTTP sees it: headers, the server-side grant check, escaping, static files, and the
// page facts GET /api/runtime/session adds. The browser tests (game-page.browser.test.ts) drive it.
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let w: PlayWorld;
let h: Harness;
let key: string;

before(async () => {
  w = await startPlayWorld({
    temporal: false,
    operators: [
      { id: 'op_pages', titles: [slot.symbol], settings: { bet_limits: { min: '20', max: '5000' } } },
    ],
  });
  ({ h, key } = w);
});
after(() => w.close());

async function launch(player: string, extra: Record<string, unknown> = {}) {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: player, ...extra },
  });
  assert.equal(res.status, 200, res.text);
  const url = new URL(res.json.launch_url);
  return { url, token: url.searchParams.get('mgckey')!, sessionId: res.json.session_id as string };
}
const page = (pathAndQuery: string) => call(h.game, 'GET', pathAndQuery);

function assertPageHeaders(headers: Headers) {
  assert.equal(headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(headers.get('content-security-policy'), PAGE_CSP);
  assert.equal(headers.get('cache-control'), 'no-store');
  assert.equal(headers.get('referrer-policy'), 'no-referrer');
  assert.equal(headers.get('x-content-type-options'), 'nosniff');
}

describe('GET /gs2c/html5Game.do', () => {
  test('a valid launch URL gets the page: strict headers, the hooks, no token in the HTML', async () => {
    const { url, token } = await launch('pages-p1');
    assert.equal(url.pathname, '/gs2c/html5Game.do');
    const res = await page(url.pathname + url.search);
    assert.equal(res.status, 200, res.text);
    assertPageHeaders(res.headers);
    for (const id of [
      'game-balance',
      'stake-select',
      'spin-button',
      'last-win',
      'close-button',
      'game-error',
    ]) {
      assert.match(res.text, new RegExp(`data-testid="${id}"`), id);
    }
    assert.match(res.text, /<select data-testid="stake-select"/);
    assert.ok(!res.text.includes(token), 'the token is never written into the page');
    assert.doesNotMatch(res.text, /<script>|<script [^>]*>[^<]/, 'no inline script');
    assert.match(res.text, new RegExp(`<h1 class="title">${slot.title}</h1>`));

    // The scripts and style sheets (the page's own and the shared runtime call's (issue 36), money
    // formatting's (issue 39), balance keeper's, reality check's, history panel's and the game pages'
    // base sheet's, included first): same origin, content-hashed paths, cached for good.
    const assets = [...res.text.matchAll(/(?:src|href)="(\/gs2c\/static\/[^"]+)"/g)].map((m) => m[1]!);
    assert.equal(assets.length, 10);
    assert.match(
      assets.join(' '),
      /page-fetch-[0-9a-f]{12}\.js \S*money-[0-9a-f]{12}\.js \S*balance-[0-9a-f]{12}\.js \S*reality-check-[0-9a-f]{12}\.js/,
    );
    assert.match(
      assets.join(' '),
      /reality-check-[0-9a-f]{12}\.css \S*history-[0-9a-f]{12}\.css \S*game-base-[0-9a-f]{12}\.css \S*game-[0-9a-f]{12}\.css/,
    );
    assert.match(
      assets.join(' '),
      /reality-check-[0-9a-f]{12}\.js \S*history-[0-9a-f]{12}\.js .*game-[0-9a-f]{12}\.js/,
    );
    for (const path of assets) {
      const file = await page(path);
      assert.equal(file.status, 200, path);
      assert.match(
        file.headers.get('content-type')!,
        path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/,
      );
      assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
    }
    assert.equal((await page('/gs2c/static/game-000000000000.js')).status, 404);
    assert.equal((await page('/gs2c/static/..%2F..%2Fpackage.json')).status, 404);
  });

  test('a link that opens no game gets the error page: 401/400, no controls, no script', async () => {
    const { url, token, sessionId } = await launch('pages-p2');
    const cases: [string, number, RegExp][] = [
      [`/gs2c/html5Game.do?symbol=${slot.symbol}`, 401, /not valid/],
      [
        `/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=guessed-0000000000000000000000000000`,
        401,
        /not valid/,
      ],
      [`/gs2c/html5Game.do?mgckey=${'x'.repeat(200)}`, 401, /not valid/],
      [`/gs2c/html5Game.do?symbol=vs25tidalpearl&mgckey=${token}`, 400, /changed/],
      [`/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=${token}&mgckey=${token}`, 400, /changed/],
    ];
    for (const [path, status, text] of cases) {
      const res = await page(path);
      assert.equal(res.status, status, path);
      assertPageHeaders(res.headers);
      assert.match(res.text, /data-testid="game-error"/);
      assert.match(res.text, text);
      assert.doesNotMatch(res.text, /spin-button|stake-select|<script/, path);
    }
    // Without the symbol the token alone decides.
    assert.equal((await page(`/gs2c/html5Game.do?mgckey=${token}`)).status, 200);

    await h.db.pool.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE session_id = $1`,
      [sessionId],
    );
    const expired = await page(url.pathname + url.search);
    assert.equal(expired.status, 401);
    assert.match(expired.text, /expired/);

    // A relaunch retires the old token: the old URL gets the error page, the new one the game.
    const fresh = await launch('pages-p2');
    assert.equal((await page(url.pathname + url.search)).status, 401);
    assert.equal((await page(fresh.url.pathname + fresh.url.search)).status, 200);
  });

  test('the title is escaped', async () => {
    const { url } = await launch('pages-p3');
    const title = `<img src=x onerror="alert('x')">&`;
    await h.db.pool.query('UPDATE games SET title = $1 WHERE symbol = $2', [title, slot.symbol]);
    try {
      const res = await page(url.pathname + url.search);
      assert.equal(res.status, 200);
      assert.ok(!res.text.includes('<img'), 'no markup from data');
      assert.ok(res.text.includes(escapeHtml(title)));
      assert.equal(
        escapeHtml(`<a href="x">'&'</a>`),
        '&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;',
      );
    } finally {
      await h.db.pool.query('UPDATE games SET title = $1 WHERE symbol = $2', [slot.title, slot.symbol]);
    }
  });

  test('the page language is a language tag or en', () => {
    assert.equal(pageLang('de'), 'de');
    assert.equal(pageLang('pt-BR'), 'pt-BR');
    assert.equal(pageLang(null), 'en');
    assert.equal(pageLang('"><script>'), 'en');
  });
});

describe('GET /api/runtime/session: what the page needs', () => {
  test('title, currency exponent, limits, stakes within the operator limits, special levels', async () => {
    const { token } = await launch('pages-p4', { return_url: 'https://casino.example/lobby' });
    const res = await call(h.game, 'GET', '/api/runtime/session', { headers: { 'x-session-token': token } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.title, slot.title);
    assert.equal(res.json.currency, 'EUR');
    assert.equal(res.json.currency_exponent, 2);
    assert.deepEqual(res.json.bet_limits, { min_minor: '20', max_minor: '5000' });
    assert.deepEqual(res.json.stakes_minor, ['20', '50', '100', '200', '500', '1000', '2000', '5000']);
    assert.deepEqual(res.json.symbol_names, [...SYMBOL_NAMES]);
    assert.deepEqual(
      res.json.bet_levels.map((l: { bet_level: number }) => l.bet_level),
      slot.special_bet_profile!.bls.filter((bl) => 20 * bl <= 5000),
    );
    for (const l of res.json.bet_levels) {
      assert.ok(l.stakes_minor.length > 0);
      for (const bet of l.stakes_minor) assert.ok(Number(bet) >= 20 && Number(bet) * l.bet_level <= 5000);
    }
    // The fields the route had before are unchanged.
    assert.equal(res.json.return_url, 'https://casino.example/lobby');
    assert.equal(res.json.symbol, slot.symbol);
  });

  test('a launch coin sets the stakes: coin x lines x level', async () => {
    const { token } = await launch('pages-p5', { coin: '0.01' });
    const res = await call(h.game, 'GET', '/api/runtime/session', { headers: { 'x-session-token': token } });
    assert.equal(res.status, 200, res.text);
    const lines = slot.lines!;
    assert.deepEqual(
      res.json.stakes_minor,
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        .map((l) => l * lines)
        .filter((v) => v >= 20 && v <= 5000)
        .map(String),
    );
  });
});
