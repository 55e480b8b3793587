import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  CATALOG,
  cleanText,
  etagFor,
  isSafeSvg,
  renderFallbackSvg,
  sniffImageType,
  svgSafetyIssues,
  wrapTitle,
} from './index.js';

const ALLOWED_ELEMENTS = new Set([
  'svg',
  'defs',
  'linearGradient',
  'stop',
  'rect',
  'text',
  'tspan',
  'circle',
  'path',
  'g',
]);

const ENTITY_DECODE: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

interface ParsedSvg {
  elements: Array<{ name: string; attrs: Record<string, string> }>;
  /** decoded character data, text nodes joined with a space */
  text: string;
}

/**
 * A strict little XML tokenizer for our own output: only an XML declaration,
 * well-formed tags with double-quoted attributes, and text with the five
 * predefined entities are allowed; nesting must balance. Anything else throws.
 */
function parseSvg(svg: string): ParsedSvg {
  let rest = svg.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  const elements: ParsedSvg['elements'] = [];
  const texts: string[] = [];
  const stack: string[] = [];
  const decodeText = (raw: string): string => {
    assert.ok(!raw.includes('<') && !raw.includes('>'), `raw markup in text: ${raw}`);
    return raw.replace(/&([a-z]*);?/g, (whole, name: string) => {
      const ch = ENTITY_DECODE[name];
      assert.ok(ch !== undefined && whole.endsWith(';'), `bad entity ${whole}`);
      return ch;
    });
  };
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const chunk = lt < 0 ? rest : rest.slice(0, lt);
    if (chunk.trim()) texts.push(decodeText(chunk));
    if (lt < 0) break;
    rest = rest.slice(lt);
    const close = /^<\/([A-Za-z]+)>/.exec(rest);
    if (close) {
      assert.equal(stack.pop(), close[1], 'unbalanced close tag');
      rest = rest.slice(close[0].length);
      continue;
    }
    const open = /^<([A-Za-z]+)((?:\s+[A-Za-z][\w:-]*="[^"<]*")*)\s*(\/?)>/.exec(rest);
    assert.ok(open, `malformed markup near: ${rest.slice(0, 60)}`);
    const attrs: Record<string, string> = {};
    for (const m of (open[2] ?? '').matchAll(/([A-Za-z][\w:-]*)="([^"]*)"/g)) {
      assert.ok(!(m[1]! in attrs), `duplicate attribute ${m[1]}`);
      attrs[m[1]!] = decodeText(m[2]!);
    }
    elements.push({ name: open[1]!, attrs });
    if (open[3] !== '/') stack.push(open[1]!);
    rest = rest.slice(open[0].length);
  }
  assert.deepEqual(stack, [], 'unclosed elements');
  return { elements, text: texts.join(' ') };
}

function assertOnlyExpectedMarkup(svg: string): ParsedSvg {
  assert.ok(!/<script/i.test(svg), 'no <script');
  for (const m of svg.matchAll(/<\/?([A-Za-z?!][\w:-]*)/g)) {
    if (m[1] === '?xml') continue;
    assert.ok(ALLOWED_ELEMENTS.has(m[1]!), `unexpected element <${m[1]}>`);
  }
  const parsed = parseSvg(svg);
  assert.equal(parsed.elements.filter((e) => e.name === 'svg').length, 1, 'exactly one <svg>');
  for (const el of parsed.elements) {
    for (const name of Object.keys(el.attrs)) {
      assert.ok(!/^on/i.test(name), `event attribute ${name} on <${el.name}>`);
      assert.ok(!/href/i.test(name), `href attribute on <${el.name}>`);
    }
  }
  // no control characters other than the newlines between elements, no lone surrogates
  assert.ok(!/\p{Cc}/u.test(svg.replace(/\n/g, '')), 'control character in output');
  assert.ok(!/\p{Cs}/u.test(svg), 'lone surrogate in output');
  return parsed;
}

const HOSTILE_TITLES = [
  '<script>alert(1)</script>',
  '"><svg onload=alert(1)>',
  'Tom & Jerry\'s "Big" <Win>',
  '</text></svg><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">',
  'Null\u0000Bell\u0007Esc\u001b[31mDel\u007fNel\u0085 end',
  'bidi \u202Egnp.exe\u202C spoof',
  'lone \uD800 surrogate',
  '&amp; already &lt;escaped&gt; &#x3C;script&#x3E;',
  ']]><![CDATA[<script>x</script>]]>',
  '<!-- comment --><?php echo 1; ?>',
];

describe('renderFallbackSvg escaping', () => {
  for (const title of HOSTILE_TITLES) {
    for (const format of ['vertical', 'horizontal'] as const) {
      test(`${format}: ${JSON.stringify(title)}`, () => {
        const svg = renderFallbackSvg({ title, provider: title, family: title, format, accent: title });
        const parsed = assertOnlyExpectedMarkup(svg);
        // aria-label carries the whole (cleaned) title, decoded back to the original characters
        const label = parsed.elements[0]!.attrs['aria-label'];
        assert.ok(label?.startsWith(cleanText(title)), `label ${label}`);
      });
    }
  }

  test('the specials come out as entities, and decode back to the visible text', () => {
    const svg = renderFallbackSvg({
      title: `<script>alert(1)</script> & "q" 'a'`,
      provider: 'A&B <Games>',
      format: 'horizontal',
    });
    assert.ok(svg.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(svg.includes('&amp; &quot;q&quot; &apos;a&apos;'));
    assert.ok(svg.includes('A&amp;B &lt;Games&gt;'));
    const parsed = assertOnlyExpectedMarkup(svg);
    assert.ok(parsed.text.includes('A&B <Games>'));
    assert.ok(parsed.text.replace(/\s+/g, '').includes(`<script>alert(1)</script>&"q"'a'`));
  });

  test('"><svg onload=...> cannot open an element or attribute', () => {
    const svg = renderFallbackSvg({ title: '"><svg onload=alert(1)>', provider: 'P', format: 'vertical' });
    assert.equal(svg.match(/<svg/g)?.length, 1);
    assert.ok(!svg.includes('"><svg'));
    assert.ok(svg.includes('&quot;&gt;&lt;svg onload=alert(1)&gt;'));
  });

  test('control characters are stripped, tabs and newlines become spaces', () => {
    assert.equal(cleanText('a\u0000b\u0007c\u001bd\u007fe\u0085f'), 'abcdef');
    assert.equal(cleanText('  one\ttwo\r\nthree  '), 'one two three');
    assert.equal(cleanText('x\u202Ey\u2066z'), 'xyz');
    assert.equal(cleanText('a\uD800b'), 'ab');
    assert.equal(cleanText('keep 🎰 emoji'), 'keep 🎰 emoji');
    const svg = renderFallbackSvg({
      title: 'Null\u0000Title\u001f',
      provider: 'P\u0008rov',
      format: 'vertical',
    });
    assert.ok(svg.includes('>NullTitle<'));
    assert.ok(svg.includes('>Prov<'));
  });

  test('the accent is a hashed seed: it never appears raw and colours are hex only', () => {
    const accent = 'red" onload="alert(1)';
    const svg = renderFallbackSvg({ title: 'T', provider: 'P', format: 'vertical', accent });
    assert.ok(!svg.includes('red"'));
    assert.ok(!svg.includes('onload'));
    for (const m of svg.matchAll(/stop-color="([^"]*)"/g)) assert.match(m[1]!, /^#[0-9a-f]{6}$/);
  });
});

describe('renderFallbackSvg layout', () => {
  function rootAttrs(svg: string): Record<string, string> {
    return parseSvg(svg).elements[0]!.attrs;
  }

  test('vertical is 600x800, horizontal is 800x450', () => {
    const v = rootAttrs(
      renderFallbackSvg({ title: 'Star Orchard', provider: 'Aurora Slots', format: 'vertical' }),
    );
    assert.equal(v['width'], '600');
    assert.equal(v['height'], '800');
    assert.equal(v['viewBox'], '0 0 600 800');
    const h = rootAttrs(
      renderFallbackSvg({ title: 'Star Orchard', provider: 'Aurora Slots', format: 'horizontal' }),
    );
    assert.equal(h['width'], '800');
    assert.equal(h['height'], '450');
    assert.equal(h['viewBox'], '0 0 800 450');
    assert.equal(h['xmlns'], 'http://www.w3.org/2000/svg');
  });

  test('an unknown format falls back to vertical rather than failing open', () => {
    const svg = renderFallbackSvg({
      title: 'T',
      provider: 'P',
      format: 'diagonal' as unknown as 'vertical',
    });
    assert.equal(rootAttrs(svg)['width'], '600');
  });

  test('deterministic: same input, same bytes; the colour follows the accent seed only', () => {
    const opts = {
      title: 'Comet Climb',
      provider: 'Dash Crash',
      family: 'crash',
      format: 'vertical' as const,
    };
    const a = renderFallbackSvg({ ...opts, accent: 'dcrash2' });
    assert.equal(a, renderFallbackSvg({ ...opts, accent: 'dcrash2' }));
    assert.equal(etagFor(a), etagFor(renderFallbackSvg({ ...opts, accent: 'dcrash2' })));
    const colours = (svg: string) => [...svg.matchAll(/stop-color="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(colours(a), colours(renderFallbackSvg({ ...opts, title: 'Other', accent: 'dcrash2' })));
    assert.notDeepEqual(colours(a), colours(renderFallbackSvg({ ...opts, accent: 'dcrash1' })));
  });

  test('catalog symbols spread over several hues', () => {
    const firstStops = new Set(
      CATALOG.map(
        (e) =>
          /stop-color="([^"]*)"/.exec(
            renderFallbackSvg({ title: e.title, provider: e.provider, format: 'vertical', accent: e.symbol }),
          )?.[1],
      ),
    );
    assert.ok(firstStops.size >= CATALOG.length / 2, `${firstStops.size} distinct colours`);
  });

  test('the title wraps to at most three lines with an ellipsis when cut', () => {
    const long = 'The Extraordinarily Long Adventures Of The Copper Kiln Dragon And Friends Forever';
    for (const format of ['vertical', 'horizontal'] as const) {
      const parsed = parseSvg(renderFallbackSvg({ title: long, provider: 'P', format }));
      const tspans = parsed.elements.filter((e) => e.name === 'tspan');
      assert.ok(tspans.length >= 2 && tspans.length <= 3, `${format}: ${tspans.length} lines`);
    }
    const lines = wrapTitle(long, 14);
    assert.equal(lines.length, 3);
    assert.ok(lines[2]!.endsWith('\u2026'));
    for (const line of lines) assert.ok(Array.from(line).length <= 14, line);
    assert.deepEqual(wrapTitle('Glacier Run', 14), ['Glacier Run']);
    assert.deepEqual(wrapTitle('Jade Lantern Nights', 14), ['Jade Lantern', 'Nights']);
  });

  test('long words are split on code points, never inside a surrogate pair', () => {
    const lines = wrapTitle('🎰'.repeat(30), 14);
    assert.equal(lines.length, 3);
    for (const line of lines) assert.ok(!/\p{Cs}/u.test(line), 'split surrogate');
    assert.equal(Array.from(lines[0]!).length, 14);
  });

  test('huge input is bounded', () => {
    const svg = renderFallbackSvg({
      title: 'x'.repeat(100_000),
      provider: 'y'.repeat(100_000),
      format: 'vertical',
    });
    assert.ok(svg.length < 5_000, `${svg.length} chars`);
    assertOnlyExpectedMarkup(svg);
  });

  test('empty title gets a placeholder, family shows as a badge', () => {
    const parsed = parseSvg(
      renderFallbackSvg({
        title: ' \u0000 ',
        provider: 'Cinder Originals',
        family: 'mines',
        format: 'vertical',
      }),
    );
    assert.ok(parsed.text.includes('Untitled game'));
    assert.ok(parsed.text.includes('MINES'));
    assert.ok(parsed.text.includes('Cinder Originals'));
  });
});

describe('sniffImageType', () => {
  const bytes = (...b: number[]) => Uint8Array.from(b);
  const utf8 = (s: string) => new TextEncoder().encode(s);

  test('recognises PNG, JPEG and WebP magic numbers', () => {
    assert.equal(
      sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13)),
      'image/png',
    );
    assert.equal(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46)), 'image/jpeg');
    const webp = utf8('RIFF\u0024\u0000\u0000\u0000WEBPVP8 ....');
    assert.equal(sniffImageType(webp), 'image/webp');
    assert.equal(sniffImageType(utf8('RIFF\u0024\u0000\u0000\u0000WEBPVP8L....')), 'image/webp');
  });

  test('recognises SVG after BOM, whitespace, XML declaration and comments', () => {
    assert.equal(sniffImageType(utf8('<svg xmlns="http://www.w3.org/2000/svg"/>')), 'image/svg+xml');
    assert.equal(sniffImageType(utf8('\uFEFF  \n<svg>')), 'image/svg+xml');
    assert.equal(
      sniffImageType(
        utf8('<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n<!--x-->\t<svg\nwidth="1">'),
      ),
      'image/svg+xml',
    );
    assert.equal(
      sniffImageType(utf8(renderFallbackSvg({ title: 'T', provider: 'P', format: 'vertical' }))),
      'image/svg+xml',
    );
  });

  test('rejects garbage and near misses', () => {
    const misses: Array<[string, Uint8Array]> = [
      ['empty', bytes()],
      ['random', bytes(0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b)],
      ['truncated png', bytes(0x89, 0x50, 0x4e, 0x47)],
      ['png with bad tail', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x00, 0x0a)],
      ['two jpeg bytes', bytes(0xff, 0xd8)],
      ['gif', utf8('GIF89a\u0001\u0000')],
      ['riff wave', utf8('RIFF\u0024\u0000\u0000\u0000WAVEfmt ')],
      ['webp without chunk', utf8('RIFF\u0024\u0000\u0000\u0000WEBP')],
      ['html', utf8('<!doctype html><html><svg></svg></html>')],
      ['svg doctype', utf8('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg/>')],
      ['svg-like name', utf8('<svgfoo>')],
      ['uppercase', utf8('<SVG>')],
      ['text before svg', utf8('hello <svg>')],
      ['unterminated comment', utf8('<!-- <svg>')],
      ['unterminated declaration', utf8('<?xml <svg>')],
      ['invalid utf-8', Uint8Array.from([0xc3, 0x28, ...utf8('<svg>')])],
      ['utf-16 svg', Uint8Array.from([0xff, 0xfe, 0x3c, 0x00, 0x73, 0x00, 0x76, 0x00, 0x67, 0x00])],
      ['json', utf8('{"svg": true}')],
    ];
    for (const [name, input] of misses) assert.equal(sniffImageType(input), null, name);
  });
});

describe('isSafeSvg', () => {
  test('accepts plain drawings with fragment and raster data references', () => {
    for (const svg of [
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#123"/></svg>',
      '<svg><defs><linearGradient id="g"/></defs><rect fill="url(#g)"/><use href="#g"/></svg>',
      '<svg><image xlink:href="data:image/png;base64,iVBORw0KGgo=" width="4" height="4"/></svg>',
      '<svg><text>Bonus on the reels, click to spin</text></svg>',
      '<svg><metadata>made with care</metadata><text>&lt;script&gt; is only text here</text></svg>',
      renderFallbackSvg({ title: '<script>alert(1)</script>', provider: 'P', format: 'vertical' }),
    ]) {
      assert.deepEqual(svgSafetyIssues(svg), [], svg.slice(0, 80));
      assert.equal(isSafeSvg(svg), true);
    }
  });

  const UNSAFE: Array<[string, string]> = [
    ['script', '<svg><script>alert(1)</script></svg>'],
    ['SCRIPT uppercase', '<svg><SCRIPT>alert(1)</SCRIPT></svg>'],
    ['namespaced script', '<svg><svg:script>alert(1)</svg:script></svg>'],
    ['onload', '<svg onload="alert(1)"></svg>'],
    ['ONLOAD spaced', '<svg ONLOAD = "alert(1)"></svg>'],
    ['slash onload', '<svg/onload=alert(1)>'],
    ['quote-adjacent handler', '<svg x="1"onmouseover="alert(1)"></svg>'],
    ['javascript href', '<svg><a href="javascript:alert(1)"><rect/></a></svg>'],
    ['JavaScript mixed case', '<svg><a xlink:href="JaVaScRiPt:alert(1)"><rect/></a></svg>'],
    ['entity-obfuscated javascript', '<svg><a href="jav&#x61;script&#58;alert(1)"><rect/></a></svg>'],
    ['whitespace-obfuscated javascript', '<svg><a href="java\tscript:alert(1)"><rect/></a></svg>'],
    ['foreignObject', '<svg><foreignObject><div>hi</div></foreignObject></svg>'],
    ['FOREIGNOBJECT', '<svg><FOREIGNOBJECT/></svg>'],
    ['namespaced foreignObject', '<svg:svg><svg:foreignObject/></svg:svg>'],
    ['xhtml body', '<svg><x:body xmlns:x="http://www.w3.org/1999/xhtml"/></svg>'],
    ['external http href', '<svg><image href="https://evil.example/x.png"/></svg>'],
    ['protocol-relative xlink', "<svg><use xlink:href='//evil.example/sprite.svg#a'/></svg>"],
    ['relative file href', '<svg><use href="sprite.svg#a"/></svg>'],
    ['unquoted external href', '<svg><image href=http://evil.example/x.png /></svg>'],
    ['svg data url', '<svg><image href="data:image/svg+xml;base64,PHN2Zz4="/></svg>'],
    ['html data url', '<svg><a href="data:text/html,<script>alert(1)</script>"/></svg>'],
    ['css external url', '<svg><rect style="fill:url(https://evil.example/a.svg#p)"/></svg>'],
    ['css import', '<svg><style>@import "https://evil.example/a.css";</style></svg>'],
    ['doctype entity', '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "b">]><svg/>'],
    ['animate href', '<svg><a><animate attributeName="href" values="#x;https://evil.example"/></a></svg>'],
    ['iframe', '<svg><iframe src="https://evil.example"></iframe></svg>'],
  ];
  for (const [name, svg] of UNSAFE) {
    test(`rejects ${name}`, () => {
      assert.equal(isSafeSvg(svg), false, svg);
      assert.ok(svgSafetyIssues(svg).length > 0);
    });
  }
});

describe('svgSafetyIssues', () => {
  test('obfuscated script URLs are named as such, not only as external references', () => {
    for (const svg of [
      '<svg><a href="jav&#x61;script&#58;alert(1)"/></svg>',
      '<svg><a href="java\tscript:alert(1)"/></svg>',
      '<svg><a href="&#106;avascript&colon;alert(1)"/></svg>',
      '<svg><set to="java&#10;script:alert(1)"/></svg>',
    ]) {
      assert.ok(svgSafetyIssues(svg).includes('script URL'), svg);
    }
  });

  test('reports each distinct problem once', () => {
    const issues = svgSafetyIssues(
      '<svg onload="x()"><script/><script/><image href="https://a.example/1"/><image href="https://b.example/2"/></svg>',
    );
    assert.deepEqual([...issues].sort(), ['event handler attribute', 'external reference', 'script element']);
  });
});

describe('etagFor', () => {
  test('strong, quoted base64url SHA-256 prefix; bytes and string agree', () => {
    const tag = etagFor('hello');
    assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/);
    const expected = createHash('sha256').update('hello').digest('base64url').slice(0, 27);
    assert.equal(tag, `"${expected}"`);
    assert.equal(etagFor(new TextEncoder().encode('héllo ✓')), etagFor('héllo ✓'));
    assert.ok(!tag.startsWith('W/'));
  });

  test('different bodies, different tags', () => {
    assert.notEqual(etagFor('a'), etagFor('b'));
    assert.notEqual(etagFor(new Uint8Array([0])), etagFor(new Uint8Array([0, 0])));
    assert.notEqual(etagFor(''), etagFor(' '));
  });
});
