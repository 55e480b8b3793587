import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ART_GAME_SYMBOLS,
  CATALOG,
  SYMBOL_NAMES,
  slotConfig,
  sniffImageType,
  svgSafetyIssues,
  symbolArtPath,
  symbolSvg,
} from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { ART_CSP } from './art-routes.js';

// The drawn symbols and the favicon as HTTP sees them (on the game origin), and the page facts
// that point the slot page at them. The browser test (symbol-art.browser.test.ts) draws them.
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const waysSlot = CATALOG.find((e) => ART_GAME_SYMBOLS.includes(e.symbol) && slotConfig(e.symbol).ways);
let w: PlayWorld;
let h: Harness;
let key: string;

before(async () => {
  w = await startPlayWorld({ temporal: false, operators: [{ id: 'op_art', titles: [slot.symbol] }] });
  ({ h, key } = w);
});
after(() => w.close());

const get = (path: string, headers: Record<string, string> = {}) => call(h.game, 'GET', path, { headers });

describe('GET /gs2c/art/:game/:file', () => {
  test("every title's every symbol: image/svg+xml, the art's bytes, nosniff, a restrictive CSP, an ETag", async () => {
    for (const game of ART_GAME_SYMBOLS) {
      for (const name of SYMBOL_NAMES) {
        const path = symbolArtPath(game, name);
        const res = await get(path);
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        assert.equal(res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
        assert.equal(res.text, symbolSvg(game, name));
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('content-security-policy'), ART_CSP);
        assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
        assert.match(res.headers.get('cache-control')!, /public, max-age=86400/);
        assert.match(res.headers.get('etag')!, /^"[A-Za-z0-9_-]{27}"$/);
        assert.equal(sniffImageType(Buffer.from(res.text)), 'image/svg+xml');
        assert.deepEqual(svgSafetyIssues(res.text), []);
      }
    }
  });

  test('the ETag revalidates: 304 without a body; another symbol has another ETag', async () => {
    const first = await get(symbolArtPath(slot.symbol, 'H1'));
    const etag = first.headers.get('etag')!;
    const again = await get(symbolArtPath(slot.symbol, 'H1'), { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const other = await get(symbolArtPath(slot.symbol, 'H2'), { 'if-none-match': etag });
    assert.equal(other.status, 200);
    assert.notEqual(other.headers.get('etag'), etag);
  });

  test('unknown titles, symbols and file names are a JSON 404', async () => {
    for (const path of [
      `/gs2c/art/${slot.symbol}/H5.svg`,
      `/gs2c/art/${slot.symbol}/h1.svg`,
      `/gs2c/art/${slot.symbol}/H1.png`,
      `/gs2c/art/${slot.symbol}/H1`,
      `/gs2c/art/${slot.symbol}/..%2FH1.svg`,
      `/gs2c/art/${slot.symbol}/constructor.svg`,
      '/gs2c/art/cnmines/H1.svg',
      '/gs2c/art/dcrash1/WILD.svg',
      '/gs2c/art/nope/WILD.svg',
      '/gs2c/art/__proto__/WILD.svg',
      `/gs2c/art/${slot.symbol}/${'A'.repeat(300)}.svg`,
    ]) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /json/, path);
      assert.doesNotMatch(res.text, /<svg/, path);
    }
  });
});

describe('GET /favicon.ico', () => {
  test('the game origin has an icon: an ICO holding a 32 x 32 PNG', async () => {
    const res = await fetch(`${h.game}/favicon.ico`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/x-icon');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 6)], [0, 0, 1, 0, 1, 0], 'ICO header, one image');
    assert.equal(bytes[6], 32);
    assert.equal(bytes[7], 32);
    const offset = bytes.readUInt32LE(18);
    assert.equal(bytes.readUInt32LE(14), bytes.length - offset);
    const png = bytes.subarray(offset);
    assert.equal(sniffImageType(png), 'image/png');
    assert.equal(png.readUInt32BE(16), 32, 'PNG width');
    assert.equal(png.readUInt32BE(20), 32, 'PNG height');
  });
});

describe('GET /api/runtime/session: the art and the paylines', () => {
  test("a slot session names each symbol id's art and spoken name, and the title's paylines", async () => {
    const launched = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key,
      body: { symbol: slot.symbol, external_player_id: 'art-p1' },
    });
    assert.equal(launched.status, 200, launched.text);
    const token = new URL(launched.json.launch_url).searchParams.get('mgckey')!;
    const res = await call(h.game, 'GET', '/api/runtime/session', { headers: { 'x-session-token': token } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.json.symbol_art.map((a: { path: string }) => a.path),
      SYMBOL_NAMES.map((n) => symbolArtPath(slot.symbol, n)),
    );
    assert.equal(res.json.symbol_art[0].label, 'Wild');
    assert.equal(res.json.symbol_art[1].label, 'Scatter');
    const config = slotConfig(slot.symbol);
    assert.equal(res.json.ways, config.ways);
    assert.deepEqual(res.json.paylines, config.paylines);
    assert.equal(res.json.paylines.length, slot.lines);
  });

  test('a ways title has no paylines', () => {
    assert.ok(waysSlot, 'the catalog has a ways title');
    assert.equal(slotConfig(waysSlot.symbol).paylines.length, 0);
  });
});
