import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CATALOG } from '../catalog.js';
import { sniffImageType, svgSafetyIssues } from '../index.js';
import { ART_GAME_SYMBOLS, ART_SYMBOL_NAMES, symbolArtPath, symbolLabel, symbolSvg } from './art.js';
import { SLOT_SYMBOLS, SYMBOL_NAMES } from './configs.js';

// The drawn symbol art of every prov_a / prov_b video slot: every title, every engine symbol
// name; each title its own set; every document passes the uploaded-artwork checks.
const SLOTS = CATALOG.filter(
  (e) => (e.provider_id === 'prov_a' || e.provider_id === 'prov_b') && e.family === 'video-slot',
);

/** Elements the art is made of: shapes, groups and one gradient. */
const ALLOWED = new Set(['svg', 'defs', 'radialGradient', 'stop', 'rect', 'circle', 'path', 'polygon', 'g']);

describe('slot symbol art', () => {
  test('covers every video slot of prov_a and prov_b and every engine symbol name', () => {
    assert.ok(SLOTS.length >= 10);
    assert.deepEqual([...ART_GAME_SYMBOLS].sort(), SLOTS.map((e) => e.symbol).sort());
    assert.deepEqual([...ART_GAME_SYMBOLS].sort(), [...SLOT_SYMBOLS].sort());
    assert.deepEqual([...ART_SYMBOL_NAMES], [...SYMBOL_NAMES]);
    assert.equal(ART_SYMBOL_NAMES.filter((n) => /^H\d$/.test(n)).length, 4);
    assert.equal(ART_SYMBOL_NAMES.filter((n) => /^L\d$/.test(n)).length, 4);
    for (const e of SLOTS) {
      for (const name of ART_SYMBOL_NAMES) {
        const svg = symbolSvg(e.symbol, name);
        assert.ok(svg, `${e.symbol}/${name} is drawn`);
        assert.ok(svg.length > 200 && svg.length < 20_000, `${e.symbol}/${name}: ${svg.length} characters`);
        const label = symbolLabel(e.symbol, name);
        assert.ok(label && /^[A-Z][a-z ]+$/.test(label), `${e.symbol}/${name} has a spoken name: ${label}`);
      }
      assert.equal(symbolLabel(e.symbol, 'WILD'), 'Wild');
      assert.equal(symbolLabel(e.symbol, 'SCATTER'), 'Scatter');
    }
  });

  test('the art path is /gs2c/art/<game>/<NAME>.svg', () => {
    assert.equal(symbolArtPath('vs20emberfox', 'H1'), '/gs2c/art/vs20emberfox/H1.svg');
    assert.equal(symbolArtPath('vs50rimevault', 'SCATTER'), '/gs2c/art/vs50rimevault/SCATTER.svg');
  });

  test('unknown titles and names have no art', () => {
    for (const [game, name] of [
      ['vs20emberfox', 'H5'],
      ['vs20emberfox', 'h1'],
      ['vs20emberfox', ''],
      ['cnmines', 'H1'],
      ['dcrash1', 'WILD'],
      ['nope', 'H1'],
      ['toString', 'H1'],
      ['__proto__', 'H1'],
      ['vs20emberfox', 'constructor'],
    ] as const) {
      assert.equal(symbolSvg(game, name), undefined, `${game}/${name}`);
      assert.equal(symbolLabel(game, name), undefined, `${game}/${name}`);
    }
  });

  test('every title has its own set: no symbol of one title is drawn the same as any of another', () => {
    const owner = new Map<string, string>();
    for (const e of SLOTS) {
      const mine = new Set<string>();
      for (const name of ART_SYMBOL_NAMES) {
        const svg = symbolSvg(e.symbol, name)!;
        assert.ok(!mine.has(svg), `${e.symbol}/${name} differs from the title's other symbols`);
        mine.add(svg);
        const other = owner.get(svg);
        assert.equal(other, undefined, `${e.symbol}/${name} is drawn the same as ${other}`);
        owner.set(svg, `${e.symbol}/${name}`);
      }
      // The high symbols' motifs are the title's own: their spoken names differ per set.
      const highs = ['H1', 'H2', 'H3', 'H4'].map((n) => symbolLabel(e.symbol, n));
      assert.equal(new Set(highs).size, 4, `${e.symbol}: four different high symbols`);
    }
    const highSets = new Set(
      SLOTS.map((e) => ['H1', 'H2', 'H3', 'H4'].map((n) => symbolLabel(e.symbol, n)).join()),
    );
    assert.equal(highSets.size, SLOTS.length, 'no two titles share their set of high motifs');
  });

  test('every document passes the uploaded-artwork checks: sniffed as SVG, no unsafe pattern', () => {
    for (const e of SLOTS) {
      for (const name of ART_SYMBOL_NAMES) {
        const svg = symbolSvg(e.symbol, name)!;
        assert.equal(sniffImageType(Buffer.from(svg, 'utf8')), 'image/svg+xml', `${e.symbol}/${name}`);
        assert.deepEqual(svgSafetyIssues(svg), [], `${e.symbol}/${name}`);
      }
    }
  });

  test('every document is plain shapes: known elements, no text, no href, no handler, one gradient reference', () => {
    for (const e of SLOTS) {
      for (const name of ART_SYMBOL_NAMES) {
        const svg = symbolSvg(e.symbol, name)!;
        const where = `${e.symbol}/${name}`;
        assert.match(
          svg,
          /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="100" height="100" viewBox="0 0 100 100">/,
        );
        assert.ok(svg.endsWith('</svg>'), where);
        for (const m of svg.matchAll(/<\/?([A-Za-z?!][\w:-]*)/g)) {
          assert.ok(ALLOWED.has(m[1]!), `${where}: unexpected element <${m[1]}>`);
        }
        // balanced tags, double-quoted attributes only
        const stack: string[] = [];
        for (const m of svg.matchAll(/<(\/?)([A-Za-z]+)((?:\s+[A-Za-z][\w:-]*="[^"<>]*")*)\s*(\/?)>/g)) {
          if (m[1]) assert.equal(stack.pop(), m[2], `${where}: unbalanced </${m[2]}>`);
          else if (!m[4]) stack.push(m[2]!);
          for (const a of (m[3] ?? '').matchAll(/([A-Za-z][\w:-]*)=/g)) {
            assert.ok(!/^on|href/i.test(a[1]!), `${where}: attribute ${a[1]}`);
          }
        }
        assert.deepEqual(stack, [], `${where}: unclosed elements`);
        assert.equal(svg.replace(/<[^>]*>/g, '').trim(), '', `${where}: no text`);
        assert.deepEqual(
          [...svg.matchAll(/url\(([^)]*)\)/g)].map((x) => x[1]),
          ['#g'],
          `${where}: only its own gradient`,
        );
        assert.ok(!/[^\x20-\x7e]/.test(svg), `${where}: ASCII only`);
      }
    }
  });
});
