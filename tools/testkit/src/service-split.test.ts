/**
 * Issue 24: two audiences, two services. Each app's routes are listed from its own routers (the
 * apps the services run, built from a test database's dependencies): the operator API serves no
 * player page or runtime route, the game server no keyed, staff, audit or admin route and no
 * operator-API CORS. Then both are asked over HTTP what the other serves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_CSP, createApp } from '@opi/api/app';
import { createGameApp } from '@opi/game-server/app';
import type Koa from 'koa';
import { call, type Harness, startApi } from './harness.js';

interface RouteLayer {
  path: string | RegExp;
  methods: string[];
}

/** Every route an app answers, as `METHOD path` (HEAD folded into GET), from its routers' layers. */
export function routesOf(app: Koa): string[] {
  const out = new Set<string>();
  for (const mw of app.middleware as Array<{ router?: { stack: RouteLayer[] } }>) {
    for (const layer of mw.router?.stack ?? []) {
      for (const method of layer.methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        out.add(`${method} ${String(layer.path)}`);
      }
    }
  }
  return [...out].sort();
}

/**
 * The players' side: pages, their static files, the runtime routes a page calls, the replay page
 * of a round (signed link) and the game origin's favicon.
 */
const PLAYER =
  /^(GET|POST) \/(gs2c|games|native|replay)(\/|$)|^(GET|POST) \/api\/runtime(\/|$)|^GET \/favicon\.ico$/;
/** The operators' side: the provider, audit, admin and staff APIs and the OpenAPI document. */
const OPERATOR = /^\w+ \/(api\/(provider|operator|admin|staff)\/|openapi|docs)/;
const SHARED = new Set(['GET /health', 'GET /ready']);

let h: Harness;
before(async () => {
  h = await startApi();
});
after(async () => {
  await h?.close();
});

describe('the two services serve two audiences', () => {
  test('the API lists no player route; the game server no operator route; each lists its own', () => {
    const api = routesOf(createApp(h.deps));
    const game = routesOf(createGameApp(h.gameDeps));
    assert.ok(api.length > 40 && game.length > 15, `${api.length} API routes, ${game.length} game routes`);
    assert.deepEqual(
      api.filter((r) => PLAYER.test(r)),
      [],
      'player routes on the API',
    );
    assert.deepEqual(
      game.filter((r) => !PLAYER.test(r) && !SHARED.has(r)),
      [],
      'routes on the game server that are not the players’',
    );
    assert.deepEqual(
      api.filter((r) => !OPERATOR.test(r) && !SHARED.has(r)),
      [],
      'routes on the API outside the operator-facing prefixes',
    );
    // The sanity of the lists themselves: what each service is for is there.
    for (const r of [
      'POST /api/provider/v1/launch-url',
      'GET /api/provider/v1/games',
      'GET /api/provider/v1/openapi.json',
    ])
      assert.ok(api.includes(r), `API lacks ${r}: ${api.join(', ')}`);
    for (const r of [
      'GET /gs2c/html5Game.do',
      'POST /api/runtime/spin',
      'GET /api/runtime/events',
      'GET /native/:slug/',
      'GET /replay/:round_id',
    ])
      assert.ok(game.includes(r), `game server lacks ${r}: ${game.join(', ')}`);
  });

  test('over HTTP: a player route is 404 on the API; a keyed route is 404 on the game server, without CORS', async () => {
    for (const path of [
      '/gs2c/html5Game.do?symbol=x&mgckey=y',
      '/api/runtime/session',
      '/games/rocket-rise/',
    ])
      assert.equal((await call(h.base, 'GET', path)).status, 404, `API ${path}`);
    for (const path of [
      '/api/provider/v1/games',
      '/api/admin/v1/operators',
      '/openapi.json',
      '/api/staff/v1/me',
    ]) {
      const res = await call(h.game, 'GET', path, { headers: { origin: 'https://lobby.example' } });
      assert.equal(res.status, 404, `game server ${path}`);
      assert.equal(res.headers.get('access-control-allow-origin'), null, `game server ${path}: CORS`);
    }
    // Each still answers its own.
    assert.equal((await call(h.base, 'GET', '/api/provider/v1/openapi.json')).status, 200);
    assert.equal((await call(h.game, 'GET', '/api/runtime/session')).status, 401);
  });

  test('each has its own policy: the API frames nothing; the game pages may be framed by a lobby', async () => {
    for (const path of ['/api/provider/v1/games', '/health', '/api/provider/v1/openapi.json']) {
      const res = await call(h.base, 'GET', path);
      assert.equal(res.headers.get('content-security-policy'), API_CSP, `API ${path}`);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
    // A game page (its error page here: no session) carries the page policy, which does not forbid
    // framing: operators show the game in an iframe of their lobby (docs/architecture.md).
    const page = await call(h.game, 'GET', '/gs2c/html5Game.do?symbol=x&mgckey=not-a-token');
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /frame-ancestors/);
  });
});
