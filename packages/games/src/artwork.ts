/**
 * Game artwork: the generated SVG fallback, upload sniffing and SVG safety
 * checks, and ETags.
 *
 * The artwork endpoint is public and takes `title` etc. from the query
 * string, so everything that reaches the SVG is treated as hostile text:
 * control characters are stripped and the five XML specials escaped. The only
 * colour input is a seed string that is hashed into a hue; no caller-supplied
 * colour, URL or attribute ever reaches the markup.
 */
import { createHash } from 'node:crypto';

export type ThumbnailFormat = 'vertical' | 'horizontal';

export type ImageContentType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/svg+xml';

export interface FallbackSvgOptions {
  title: string;
  provider: string;
  family?: string;
  format: ThumbnailFormat;
  /**
   * Colour seed — normally the game symbol. It is hashed into a hue and never
   * emitted; when absent, title and provider seed the colour.
   */
  accent?: string;
}

export const THUMBNAIL_SIZES: Readonly<Record<ThumbnailFormat, { width: number; height: number }>> = {
  vertical: { width: 600, height: 800 },
  horizontal: { width: 800, height: 450 },
};

/** Longest input (in code points) that is looked at; the rest is dropped before wrapping. */
const MAX_INPUT_CHARS = 200;
const MAX_TITLE_LINES = 3;

// C0/C1 controls (incl. DEL), lone surrogates, the non-characters U+FFFE/U+FFFF
// and bidi embedding/override/isolate controls (display spoofing).
const STRIP = /[\p{Cc}\p{Cs}\uFFFE\uFFFF\u202A-\u202E\u2066-\u2069]/gu;

/** First `max` code points of `text` (never splits a surrogate pair). */
function take(text: string, max: number): string {
  return Array.from(text).slice(0, max).join('');
}

/** Shorten to `max` code points, ending with an ellipsis when cut. */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}\u2026`;
}

/**
 * Remove control characters and collapse whitespace (tab/CR/LF become
 * spaces). Input beyond MAX_INPUT_CHARS code points is dropped.
 */
export function cleanText(input: string): string {
  const text = String(input).replace(/\s+/g, ' ').replace(STRIP, '').replace(/ {2,}/g, ' ').trim();
  return take(text, MAX_INPUT_CHARS).trim();
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Escape for both XML text content and quoted attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? '');
}

/** `hsl(h, s%, l%)` as `#rrggbb` (hex renders in every SVG rasteriser). */
export function hslToHex(h: number, s: number, l: number): string {
  const sat = s / 100;
  const lig = l / 100;
  const a = sat * Math.min(lig, 1 - lig);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const v = lig - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

/** Deterministic hue (0–359) from a seed string. */
export function hueFor(seed: string): number {
  const digest = createHash('sha256').update(seed, 'utf8').digest();
  return ((digest[0] ?? 0) * 256 + (digest[1] ?? 0)) % 360;
}

/**
 * Greedy word wrap on code points. Words longer than a line are split; when
 * the text needs more than `maxLines`, the last line ends with an ellipsis.
 */
export function wrapTitle(text: string, maxChars: number, maxLines = MAX_TITLE_LINES): string[] {
  const words = cleanText(text).split(' ').filter(Boolean);
  const lines: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) lines.push(current.join(''));
    current = [];
  };
  for (const word of words) {
    let chars = Array.from(word);
    if (current.length > 0 && current.length + 1 + chars.length <= maxChars) {
      current.push(' ', ...chars);
      continue;
    }
    flush();
    while (chars.length > maxChars) {
      lines.push(chars.slice(0, maxChars).join(''));
      chars = chars.slice(maxChars);
    }
    current = chars;
  }
  flush();
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = Array.from(kept[maxLines - 1] ?? '');
  kept[maxLines - 1] = `${last
    .slice(0, Math.max(0, maxChars - 1))
    .join('')
    .trimEnd()}\u2026`;
  return kept;
}

interface Layout {
  maxChars: number;
  titleSize: number;
  lineHeight: number;
  titleCenterY: number;
  providerY: number;
  providerSize: number;
  badgeY: number;
}

const LAYOUTS: Readonly<Record<ThumbnailFormat, Layout>> = {
  vertical: {
    maxChars: 14,
    titleSize: 60,
    lineHeight: 70,
    titleCenterY: 420,
    providerY: 730,
    providerSize: 28,
    badgeY: 56,
  },
  horizontal: {
    maxChars: 22,
    titleSize: 52,
    lineHeight: 62,
    titleCenterY: 220,
    providerY: 400,
    providerSize: 24,
    badgeY: 36,
  },
};

const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif';

/** Render the fallback thumbnail as a UTF-8 SVG document string. */
export function renderFallbackSvg(options: FallbackSvgOptions): string {
  const format: ThumbnailFormat = options.format === 'horizontal' ? 'horizontal' : 'vertical';
  const { width, height } = THUMBNAIL_SIZES[format];
  const layout = LAYOUTS[format];
  const title = cleanText(options.title) || 'Untitled game';
  const provider = truncate(cleanText(options.provider), format === 'vertical' ? 36 : 48);
  const family = truncate(cleanText(options.family ?? '').toUpperCase(), 24);

  const hue = hueFor(options.accent ?? `${title}|${provider}`);
  const hue2 = (hue + 42) % 360;
  const hue3 = (hue + 200) % 360;
  const c1 = hslToHex(hue, 68, 42);
  const c2 = hslToHex(hue2, 62, 26);
  const c3 = hslToHex(hue2, 70, 12);
  const glow = hslToHex(hue3, 90, 70);
  const cx = width / 2;

  const lines = wrapTitle(title, layout.maxChars);
  const firstY = layout.titleCenterY - ((lines.length - 1) * layout.lineHeight) / 2;
  const tspans = lines
    .map((line, i) => `<tspan x="${cx}" y="${firstY + i * layout.lineHeight}">${escapeXml(line)}</tspan>`)
    .join('');

  const label = [title, provider].filter(Boolean).join(' \u2013 ');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(label)}">`,
    '<defs>',
    '<linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">',
    `<stop offset="0" stop-color="${c1}"/>`,
    `<stop offset="0.55" stop-color="${c2}"/>`,
    `<stop offset="1" stop-color="${c3}"/>`,
    '</linearGradient>',
    '<linearGradient id="glow" x1="0" y1="0" x2="0" y2="1">',
    `<stop offset="0" stop-color="${glow}" stop-opacity="0.55"/>`,
    `<stop offset="1" stop-color="${glow}" stop-opacity="0"/>`,
    '</linearGradient>',
    '</defs>',
    `<rect width="${width}" height="${height}" fill="url(#bg)"/>`,
    '<g opacity="0.9">',
    `<circle cx="${Math.round(width * 0.82)}" cy="${Math.round(height * 0.16)}" r="${Math.round(width * 0.3)}" fill="url(#glow)"/>`,
    `<circle cx="${Math.round(width * 0.1)}" cy="${Math.round(height * 0.92)}" r="${Math.round(width * 0.22)}" fill="url(#glow)"/>`,
    `<path d="M0 ${Math.round(height * 0.78)} Q ${cx} ${Math.round(height * 0.66)} ${width} ${Math.round(height * 0.8)} L ${width} ${height} L 0 ${height} Z" fill="#000" fill-opacity="0.28"/>`,
    '</g>',
  ];
  if (family) {
    const badgeWidth = Math.min(width - 48, 40 + Array.from(family).length * 13);
    parts.push(
      `<rect x="${cx - badgeWidth / 2}" y="${layout.badgeY - 24}" width="${badgeWidth}" height="36" rx="18" fill="#fff" fill-opacity="0.16"/>`,
      `<text x="${cx}" y="${layout.badgeY}" text-anchor="middle" font-family="${FONT}" font-size="20" font-weight="600" letter-spacing="3" fill="#fff">${escapeXml(family)}</text>`,
    );
  }
  parts.push(
    `<text text-anchor="middle" dominant-baseline="middle" font-family="${FONT}" font-size="${layout.titleSize}" font-weight="800" fill="#fff">${tspans}</text>`,
  );
  if (provider) {
    parts.push(
      `<text x="${cx}" y="${layout.providerY}" text-anchor="middle" font-family="${FONT}" font-size="${layout.providerSize}" font-weight="500" fill="#fff" fill-opacity="0.85">${escapeXml(provider)}</text>`,
    );
  }
  parts.push('</svg>');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${parts.join('\n')}\n`;
}

// ── Upload sniffing ────────────────────────────────────────────────────────

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  if (bytes.length < at + magic.length) return false;
  return magic.every((b, i) => bytes[at + i] === b);
}

function ascii(s: string): number[] {
  return Array.from(s, (c) => c.charCodeAt(0));
}

/** How far into an upload the SVG prologue may extend. */
const SVG_SNIFF_BYTES = 4096;

/**
 * Content type from magic bytes, or null. SVG is recognised only as UTF-8
 * text whose first element (after an optional BOM, whitespace, XML
 * declaration and comments) is `<svg`; a DOCTYPE is not accepted.
 */
export function sniffImageType(bytes: Uint8Array): ImageContentType | null {
  if (startsWith(bytes, PNG_MAGIC)) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (
    startsWith(bytes, ascii('RIFF')) &&
    startsWith(bytes, ascii('WEBP'), 8) &&
    startsWith(bytes, ascii('VP8'), 12)
  ) {
    return 'image/webp';
  }
  return looksLikeSvg(bytes) ? 'image/svg+xml' : null;
}

function looksLikeSvg(bytes: Uint8Array): boolean {
  let text: string;
  try {
    // stream: true tolerates a multi-byte character cut at the sniff boundary.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, SVG_SNIFF_BYTES), {
      stream: true,
    });
  } catch {
    return false;
  }
  let rest = text.replace(/^\uFEFF/, '');
  for (;;) {
    rest = rest.replace(/^\s+/, '');
    if (rest.startsWith('<?xml')) {
      const end = rest.indexOf('?>');
      if (end < 0) return false;
      rest = rest.slice(end + 2);
    } else if (rest.startsWith('<!--')) {
      const end = rest.indexOf('-->', 4);
      if (end < 0) return false;
      rest = rest.slice(end + 3);
    } else {
      break;
    }
  }
  return /^<svg[\s>/]/.test(rest);
}

// ── SVG upload safety ──────────────────────────────────────────────────────

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  lpar: '(',
  rpar: ')',
  sol: '/',
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/** Decode numeric and a few named character references (defeats `jav&#x61;script:`). */
function decodeEntities(text: string): string {
  return text.replace(
    /&(?:#x([0-9a-f]+)|#(\d+)|([a-z]+));?/gi,
    (whole, hex?: string, dec?: string, name?: string) => {
      if (hex !== undefined || dec !== undefined) {
        const code = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(dec ?? '', 10);
        return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
      }
      return NAMED_ENTITIES[(name ?? '').toLowerCase()] ?? whole;
    },
  );
}

/** Allowed reference targets: same-document fragments and embedded raster images. */
function isLocalReference(value: string): boolean {
  const v = value.replace(/[\s\p{Cc}]/gu, '').toLowerCase();
  return v.startsWith('#') || /^data:image\/(?:png|jpeg|jpg|gif|webp)[;,]/.test(v);
}

/**
 * Reasons an uploaded SVG is unsafe to serve (empty when it is acceptable).
 * This is a deny-list applied on top of sniffing, matched case-insensitively.
 * Element and attribute patterns are matched on the raw text (character
 * references cannot create markup); URL patterns are matched on both the raw
 * text and an entity-decoded, whitespace-stripped copy (`jav&#x61;script:`).
 */
export function svgSafetyIssues(text: string): string[] {
  const issues = new Set<string>();
  const lower = text.toLowerCase();
  const element = (names: string) => new RegExp(`<(?:[\\w.-]+:)?(?:${names})(?:[\\s/>]|$)`);
  if (element('script').test(lower) || lower.includes('<script')) issues.add('script element');
  if (element('foreignobject').test(lower) || lower.includes('<foreignobject')) {
    issues.add('foreignObject element');
  }
  if (element('iframe|embed|object|handler|html|body|meta|link').test(lower)) {
    issues.add('embedded content element');
  }
  if (/(?:^|[\s"'/:;])on[a-z]+\s*=/.test(lower)) issues.add('event handler attribute');
  if (/<!(?:doctype|entity)/.test(lower)) issues.add('DTD or entity declaration');
  if (/attributename\s*=\s*["']?\s*(?:xlink:)?(?:href|on)/.test(lower)) {
    issues.add('animation of href or event attribute');
  }
  for (const variant of [lower, decodeEntities(text).toLowerCase()]) {
    const squeezed = variant.replace(/[\s\p{Cc}]/gu, '');
    if (squeezed.includes('javascript:') || squeezed.includes('vbscript:')) issues.add('script URL');
    if (squeezed.includes('data:text/html')) issues.add('html data URL');
    if (squeezed.includes('@import')) issues.add('stylesheet import');
    for (const m of variant.matchAll(/href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
      if (!isLocalReference(m[1] ?? m[2] ?? m[3] ?? '')) issues.add('external reference');
    }
    for (const m of variant.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)/g)) {
      if (!isLocalReference(m[1] ?? m[2] ?? m[3] ?? '')) issues.add('external reference');
    }
  }
  return [...issues];
}

/** True when an SVG upload contains none of the patterns in `svgSafetyIssues`. */
export function isSafeSvg(text: string): boolean {
  return svgSafetyIssues(text).length === 0;
}

// ── ETags ──────────────────────────────────────────────────────────────────

/** Strong ETag: a quoted 27-character base64url prefix of the SHA-256 of the body. */
export function etagFor(body: Uint8Array | string): string {
  const hash = createHash('sha256');
  if (typeof body === 'string') hash.update(body, 'utf8');
  else hash.update(body);
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}
