/**
 * Drawn symbol art of the prov_a / prov_b video slots: for every title its own set of ten symbols
 * (4 high, 4 low, a wild and a scatter) as hand-written SVG primitives on a 100 x 100 tile.
 *
 * Each title has a theme taken from its name (fox and embers, pearls and the sea, ice, jade
 * lanterns, copper and kilns, fruit and stars, wolves, the northern lights, a Viking hoard, a
 * frozen crown vault), a palette of its own and motifs drawn from paths, circles and polygons. No
 * external image, no font and no text: the wild's "W" is a drawn stroke. The only reference in a
 * document is to its own gradient (`url(#g)`), so every SVG passes the uploaded-artwork checks of
 * `svgSafetyIssues` (artwork.ts); art.test.ts runs every one through them.
 */
import { CATALOG, isSlotTitle } from '../catalog.js';
import { SYMBOL_NAMES } from './configs.js';

/** The symbol names art exists for (the engine's names: WILD, SCATTER, H1..H4, L1..L4). */
export const ART_SYMBOL_NAMES: readonly string[] = SYMBOL_NAMES;

/** The slot titles art is drawn for: the catalog's prov_a / prov_b video slots. */
export const ART_GAME_SYMBOLS: readonly string[] = Object.freeze(
  CATALOG.filter((e) => isSlotTitle(e.provider_id) && e.family === 'video-slot').map((e) => e.symbol),
);

/** Where the game server serves a symbol's SVG (`GET /gs2c/art/:game/:file`). */
export function symbolArtPath(gameSymbol: string, name: string): string {
  return `/gs2c/art/${encodeURIComponent(gameSymbol)}/${encodeURIComponent(name)}.svg`;
}

interface Palette {
  /** tile background: centre and edge of the radial gradient */
  readonly bg0: string;
  readonly bg1: string;
  /** the motif's main and second colours, a highlight, and the outline ink */
  readonly main: string;
  readonly second: string;
  readonly hi: string;
  readonly ink: string;
  /** the high symbols' frame */
  readonly frame: string;
}

type Draw = (p: Palette) => string;
interface Motif {
  readonly label: string;
  readonly draw: Draw;
}

// ── primitives ──────────────────────────────────────────────────────────────────────────────────

const path = (d: string, fill: string, extra = '') => `<path d="${d}" fill="${fill}"${extra}/>`;
const circle = (cx: number, cy: number, r: number, fill: string, extra = '') =>
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}"${extra}/>`;
const stroke = (color: string, width: number) =>
  ` stroke="${color}" stroke-width="${width}" stroke-linecap="round" stroke-linejoin="round"`;
const lines = (d: string, color: string, width: number, extra = '') =>
  `<path d="${d}" fill="none"${stroke(color, width)}${extra}/>`;
const ring = (cx: number, cy: number, r: number, color: string, width: number) =>
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="none"${stroke(color, width)}/>`;

function starPoints(cx: number, cy: number, outer: number, inner: number, n: number): string {
  const pts: string[] = [];
  for (let i = 0; i < n * 2; i++) {
    const r = i % 2 === 0 ? outer : inner;
    const a = (Math.PI * i) / n - Math.PI / 2;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(' ');
}
const star = (cx: number, cy: number, outer: number, inner: number, n: number, fill: string, extra = '') =>
  `<polygon points="${starPoints(cx, cy, outer, inner, n)}" fill="${fill}"${extra}/>`;

/** Six copies of `inner` turned about the centre. */
const sixfold = (inner: string) =>
  [0, 60, 120, 180, 240, 300].map((a) => `<g transform="rotate(${a} 50 50)">${inner}</g>`).join('');

// ── motifs ──────────────────────────────────────────────────────────────────────────────────────

const m = (label: string, draw: Draw): Motif => ({ label, draw });

const fox = m(
  'Fox',
  (p) =>
    path('M20 20 L40 38 H60 L80 20 L76 52 L50 82 L24 52 Z', p.main, stroke(p.ink, 3)) +
    path('M24 52 L50 82 L40 58 Z M76 52 L50 82 L60 58 Z', p.hi) +
    path('M26 26 L36 36 L28 42 Z M74 26 L64 36 L72 42 Z', p.second) +
    circle(40, 52, 4, p.ink) +
    circle(60, 52, 4, p.ink) +
    circle(50, 76, 4, p.ink),
);
const flame = m(
  'Flame',
  (p) =>
    path(
      'M50 12 C58 30 76 40 72 60 C70 76 60 86 50 86 C38 86 28 76 28 60 C28 46 40 42 42 28 C46 36 48 42 50 46 C54 34 52 24 50 12 Z',
      p.main,
      stroke(p.ink, 3),
    ) + path('M50 50 C56 58 62 64 60 72 C58 80 54 82 50 82 C44 82 40 78 40 72 C40 64 48 60 50 50 Z', p.hi),
);
const coin = m(
  'Coin',
  (p) =>
    circle(50, 50, 32, p.second, stroke(p.ink, 3)) +
    ring(50, 50, 24, p.hi, 2.5) +
    star(50, 50, 16, 7, 5, p.hi),
);
const gem = m(
  'Gem',
  (p) =>
    path('M24 38 L38 20 H62 L76 38 L50 82 Z', p.main, stroke(p.ink, 3)) +
    lines('M24 38 H76 M38 20 L44 38 L50 82 L56 38 L62 20', p.hi, 2, ' opacity="0.8"') +
    path('M40 24 L44 34 L36 34 Z', '#ffffff', ' opacity="0.6"'),
);
const pearl = m(
  'Pearl',
  (p) =>
    path('M50 84 L16 50 A34 34 0 0 1 84 50 Z', p.second, stroke(p.ink, 3)) +
    lines('M50 84 L28 34 M50 84 L42 28 M50 84 L58 28 M50 84 L72 34', p.ink, 1.5, ' opacity="0.5"') +
    circle(50, 56, 15, p.hi, stroke(p.ink, 2)) +
    circle(45, 51, 5, '#ffffff', ' opacity="0.8"'),
);
const shell = m(
  'Shell',
  (p) =>
    path(
      'M50 82 C30 82 16 64 18 42 C22 26 36 18 50 18 C64 18 78 26 82 42 C84 64 70 82 50 82 Z',
      p.main,
      stroke(p.ink, 3),
    ) + lines('M50 80 V22 M50 80 L32 26 M50 80 L68 26 M50 80 L22 44 M50 80 L78 44', p.hi, 2.5),
);
const anchor = m(
  'Anchor',
  (p) =>
    ring(50, 22, 7, p.main, 5) +
    lines('M50 29 V82 M34 40 H66 M22 60 C24 76 40 82 50 82 C60 82 76 76 78 60', p.main, 7) +
    path('M16 62 L22 54 L28 62 Z M72 62 L78 54 L84 62 Z', p.main),
);
const wave = m(
  'Wave',
  (p) =>
    path(
      'M12 74 C18 50 34 30 56 30 C74 30 84 42 80 54 C76 64 62 62 62 54 C62 48 68 46 70 50 C70 40 58 38 50 44 C40 52 42 66 52 72 C60 76 74 74 88 70 V84 H12 Z',
      p.main,
      stroke(p.ink, 3),
    ) + lines('M18 80 C30 72 44 78 56 78 C68 78 78 74 86 76', p.hi, 3),
);
const starfish = m(
  'Starfish',
  (p) =>
    star(50, 52, 36, 14, 5, p.main, stroke(p.ink, 3)) + circle(50, 52, 5, p.hi) + circle(50, 32, 2.5, p.hi),
);
const fish = m(
  'Fish',
  (p) =>
    path('M14 50 C26 30 54 28 68 44 L84 32 V68 L68 56 C54 72 26 70 14 50 Z', p.main, stroke(p.ink, 3)) +
    circle(30, 46, 4, p.ink) +
    lines('M44 38 C48 46 48 54 44 62', p.hi, 2.5),
);
const bubbles = m(
  'Bubbles',
  (p) =>
    circle(40, 58, 18, p.main, stroke(p.ink, 3)) +
    circle(64, 36, 12, p.main, stroke(p.ink, 3)) +
    circle(66, 66, 8, p.main, stroke(p.ink, 2)) +
    circle(34, 52, 5, p.hi, ' opacity="0.8"') +
    circle(61, 32, 3, p.hi, ' opacity="0.8"'),
);
const droplet = m(
  'Drop',
  (p) =>
    path(
      'M50 14 C60 34 74 48 74 62 C74 76 64 86 50 86 C36 86 26 76 26 62 C26 48 40 34 50 14 Z',
      p.main,
      stroke(p.ink, 3),
    ) + path('M38 62 C38 70 42 76 48 78', 'none', stroke(p.hi, 4)),
);
const mountain = m(
  'Mountain',
  (p) =>
    path('M8 82 L40 26 L56 50 L66 38 L92 82 Z', p.main, stroke(p.ink, 3)) +
    path('M40 26 L31 42 L38 38 L44 44 L49 38 Z M66 38 L60 46 L66 44 L72 48 Z', p.hi),
);
const snowflake = m(
  'Snowflake',
  (p) =>
    sixfold(lines('M50 50 V14 M50 26 L42 18 M50 26 L58 18 M50 38 L40 30 M50 38 L60 30', p.main, 5)) +
    circle(50, 50, 6, p.hi),
);
const crystal = m(
  'Crystal',
  (p) =>
    path('M50 10 L68 32 L62 88 H38 L32 32 Z', p.main, stroke(p.ink, 3)) +
    lines('M32 32 H68 M50 10 V88 M38 88 L50 32 L62 88', p.hi, 2, ' opacity="0.7"'),
);
const moon = m(
  'Moon',
  (p) =>
    path('M60 14 A36 36 0 1 0 60 86 A40 40 0 0 1 60 14 Z', p.main, stroke(p.ink, 3)) +
    star(72, 30, 8, 3, 4, p.hi) +
    star(78, 58, 5, 2, 4, p.hi),
);
const pine = m(
  'Pine',
  (p) =>
    path('M50 10 L70 38 H60 L76 58 H62 L80 78 H20 L38 58 H24 L40 38 H30 Z', p.main, stroke(p.ink, 3)) +
    path('M45 78 H55 V90 H45 Z', p.second) +
    circle(44, 46, 3, p.hi) +
    circle(58, 66, 3, p.hi),
);
const lantern = m(
  'Lantern',
  (p) =>
    lines('M50 8 V18', p.ink, 3) +
    path('M38 18 H62 V24 H38 Z M38 76 H62 V82 H38 Z', p.second, stroke(p.ink, 2)) +
    path('M36 24 H64 C80 36 80 64 64 76 H36 C20 64 20 36 36 24 Z', p.main, stroke(p.ink, 3)) +
    lines('M50 24 V76 M38 26 C30 40 30 60 38 74 M62 26 C70 40 70 60 62 74', p.hi, 2) +
    lines('M46 82 V94 M54 82 V94', p.second, 3),
);
const jadeCoin = m(
  'Jade coin',
  (p) =>
    circle(50, 50, 34, p.main, stroke(p.ink, 3)) +
    ring(50, 50, 26, p.hi, 2) +
    path('M41 41 H59 V59 H41 Z', p.ink) +
    circle(50, 28, 3.5, p.hi) +
    circle(50, 72, 3.5, p.hi) +
    circle(28, 50, 3.5, p.hi) +
    circle(72, 50, 3.5, p.hi),
);
const lotus = m(
  'Lotus',
  (p) =>
    [-60, -30, 0, 30, 60]
      .map(
        (a) =>
          `<g transform="rotate(${a} 50 74)">${path('M50 74 C38 60 40 34 50 20 C60 34 62 60 50 74 Z', a === 0 ? p.main : p.second, stroke(p.ink, 2))}</g>`,
      )
      .join('') + path('M24 76 C40 84 60 84 76 76 C64 90 36 90 24 76 Z', p.hi),
);
const vase = m(
  'Vase',
  (p) =>
    path(
      'M38 14 H62 V22 C62 28 78 38 78 58 C78 76 66 86 50 86 C34 86 22 76 22 58 C22 38 38 28 38 22 Z',
      p.main,
      stroke(p.ink, 3),
    ) + lines('M26 50 H74 M24 64 H76', p.hi, 4),
);
const ingot = m(
  'Ingot',
  (p) =>
    path('M14 72 L28 42 H72 L86 72 Z', p.main, stroke(p.ink, 3)) +
    path('M28 42 L36 30 H64 L72 42 Z', p.hi, stroke(p.ink, 3)),
);
const hammer = m(
  'Hammer',
  (p) =>
    `<g transform="rotate(-35 50 50)">${path('M46 36 H54 V90 H46 Z', p.second, stroke(p.ink, 2))}${path('M26 16 H74 V38 H26 Z', p.main, stroke(p.ink, 3))}${lines('M30 22 H70', p.hi, 2.5)}</g>`,
);
const apple = m(
  'Apple',
  (p) =>
    path(
      'M50 32 C40 22 18 26 18 50 C18 70 34 88 50 80 C66 88 82 70 82 50 C82 26 60 22 50 32 Z',
      p.main,
      stroke(p.ink, 3),
    ) +
    lines('M50 32 C50 22 54 16 58 12', p.ink, 3) +
    path('M54 22 C62 12 74 14 76 18 C70 26 60 26 54 22 Z', p.second) +
    path('M30 46 C30 40 34 36 38 36', 'none', stroke(p.hi, 4)),
);
const cherry = m(
  'Cherries',
  (p) =>
    lines('M34 64 C38 42 52 26 66 16 M66 64 C64 44 66 28 66 16', p.second, 3) +
    circle(34, 68, 16, p.main, stroke(p.ink, 3)) +
    circle(66, 68, 16, p.main, stroke(p.ink, 3)) +
    circle(29, 63, 4, p.hi) +
    circle(61, 63, 4, p.hi),
);
const pear = m(
  'Pear',
  (p) =>
    path(
      'M50 18 C60 18 60 36 64 44 C76 56 78 86 50 86 C22 86 24 56 36 44 C40 36 40 18 50 18 Z',
      p.main,
      stroke(p.ink, 3),
    ) +
    lines('M50 18 V8', p.ink, 3) +
    path('M38 60 C36 66 38 72 42 76', 'none', stroke(p.hi, 4)),
);
const plum = m(
  'Plum',
  (p) =>
    circle(50, 54, 30, p.main, stroke(p.ink, 3)) +
    lines('M50 26 C44 40 44 66 50 82', p.ink, 2, ' opacity="0.6"') +
    path('M50 24 C56 12 68 12 72 16 C66 24 56 26 50 24 Z', p.second) +
    circle(38, 44, 5, p.hi, ' opacity="0.8"'),
);
const grapes = m(
  'Grapes',
  (p) =>
    [
      [36, 34],
      [50, 34],
      [64, 34],
      [43, 48],
      [57, 48],
      [50, 62],
      [43, 75],
      [57, 75],
    ]
      .map(([x, y]) => circle(x!, y!, 8, p.main, stroke(p.ink, 2)))
      .join('') + path('M50 26 C54 16 64 12 70 14 C66 22 58 26 50 26 Z', p.second),
);
const lemon = m(
  'Lemon',
  (p) =>
    path('M12 50 C20 24 80 24 88 50 C80 76 20 76 12 50 Z', '#f2d13a', stroke(p.ink, 3)) +
    path('M30 42 C36 36 46 34 54 36', 'none', stroke(p.hi, 4)),
);
const leaf = m(
  'Leaf',
  (p) =>
    path('M18 82 C18 42 42 18 84 16 C84 58 60 82 18 82 Z', p.second, stroke(p.ink, 3)) +
    lines('M18 82 L70 30 M40 60 L40 44 M52 48 L64 48', p.hi, 3),
);
const starM = m(
  'Star',
  (p) => star(50, 52, 38, 16, 5, p.main, stroke(p.ink, 3)) + star(50, 52, 18, 8, 5, p.hi),
);
const wolf = m(
  'Wolf',
  (p) =>
    path('M18 16 L38 36 H62 L82 16 L80 54 L62 72 L50 88 L38 72 L20 54 Z', p.main, stroke(p.ink, 3)) +
    path('M38 72 L50 88 L62 72 L50 64 Z', p.hi) +
    path('M32 50 L44 46 L42 52 Z M68 50 L56 46 L58 52 Z', p.ink) +
    circle(50, 78, 4, p.ink),
);
const paw = m(
  'Paw',
  (p) =>
    path(
      'M30 70 C30 52 42 46 50 46 C58 46 70 52 70 70 C70 80 60 82 50 78 C40 82 30 80 30 70 Z',
      p.main,
      stroke(p.ink, 3),
    ) +
    circle(26, 42, 8, p.main, stroke(p.ink, 2)) +
    circle(40, 26, 8, p.main, stroke(p.ink, 2)) +
    circle(60, 26, 8, p.main, stroke(p.ink, 2)) +
    circle(74, 42, 8, p.main, stroke(p.ink, 2)),
);
const aurora = m(
  'Aurora',
  (p) =>
    lines('M10 40 C30 20 50 50 90 22', p.main, 8, ' opacity="0.9"') +
    lines('M10 58 C34 36 54 66 90 40', p.second, 8, ' opacity="0.9"') +
    lines('M10 74 C34 54 56 82 90 58', p.hi, 6, ' opacity="0.9"') +
    path('M8 88 L30 74 L46 84 L64 70 L92 88 Z', p.ink),
);
const helmet = m(
  'Helmet',
  (p) =>
    path('M22 62 C22 36 34 26 50 26 C66 26 78 36 78 62 Z', p.main, stroke(p.ink, 3)) +
    path('M18 62 H82 V72 H18 Z M46 62 H54 V86 H46 Z', p.second, stroke(p.ink, 2)) +
    path(
      'M22 50 C10 44 8 30 12 16 C16 30 22 36 30 38 Z M78 50 C90 44 92 30 88 16 C84 30 78 36 70 38 Z',
      p.hi,
      stroke(p.ink, 2),
    ),
);
const axe = m(
  'Axe',
  (p) =>
    `<g transform="rotate(20 50 50)">${path('M47 12 H53 V92 H47 Z', p.second, stroke(p.ink, 2))}${path('M53 18 C70 14 84 22 86 40 C76 44 66 46 53 44 Z', p.main, stroke(p.ink, 3))}${lines('M60 22 C72 22 80 30 82 38', p.hi, 2.5)}</g>`,
);
const shield = m(
  'Shield',
  (p) =>
    circle(50, 50, 36, p.main, stroke(p.ink, 3)) +
    lines('M50 14 V86 M14 50 H86', p.second, 6) +
    circle(50, 50, 10, p.hi, stroke(p.ink, 2)),
);
const longship = m(
  'Longship',
  (p) =>
    path('M50 12 L50 60 L80 58 C76 40 66 22 50 12 Z', p.hi, stroke(p.ink, 2)) +
    lines('M50 12 V64', p.ink, 3) +
    path(
      'M8 58 C12 70 22 78 34 78 H66 C78 78 88 70 92 58 C84 64 74 66 50 66 C26 66 16 64 8 58 Z',
      p.main,
      stroke(p.ink, 3),
    ) +
    circle(30, 70, 3, p.second) +
    circle(44, 71, 3, p.second) +
    circle(58, 71, 3, p.second) +
    circle(72, 70, 3, p.second),
);
const crown = m(
  'Crown',
  (p) =>
    path('M16 74 L20 30 L36 50 L50 20 L64 50 L80 30 L84 74 Z', p.main, stroke(p.ink, 3)) +
    path('M16 74 H84 V84 H16 Z', p.second, stroke(p.ink, 2)) +
    circle(20, 28, 5, p.hi) +
    circle(50, 18, 5, p.hi) +
    circle(80, 28, 5, p.hi) +
    circle(50, 60, 6, p.hi),
);
const key = m(
  'Key',
  (p) =>
    `<g transform="rotate(-40 50 50)">${ring(50, 22, 12, p.main, 7)}${lines('M50 34 V86 M50 70 H62 M50 80 H60', p.main, 7)}${circle(50, 22, 4, p.hi)}</g>`,
);
const vault = m(
  'Vault',
  (p) =>
    circle(50, 50, 36, p.second, stroke(p.ink, 3)) +
    ring(50, 50, 28, p.ink, 2) +
    sixfold(lines('M50 50 V24', p.main, 6) + circle(50, 22, 4, p.hi)) +
    circle(50, 50, 9, p.main, stroke(p.ink, 2)),
);

// card suits
const heart = m('Heart', (p) =>
  path(
    'M50 82 C20 60 16 36 32 28 C44 22 50 34 50 38 C50 34 56 22 68 28 C84 36 80 60 50 82 Z',
    p.main,
    stroke(p.ink, 3),
  ),
);
const diamond = m('Diamond', (p) => path('M50 14 L78 50 L50 86 L22 50 Z', p.main, stroke(p.ink, 3)));
const club = m(
  'Club',
  (p) =>
    circle(50, 32, 15, p.main, stroke(p.ink, 3)) +
    circle(32, 56, 15, p.main, stroke(p.ink, 3)) +
    circle(68, 56, 15, p.main, stroke(p.ink, 3)) +
    path('M46 54 H54 L60 86 H40 Z', p.main, stroke(p.ink, 3)),
);
const spade = m(
  'Spade',
  (p) =>
    path(
      'M50 14 C80 38 84 58 70 66 C60 72 52 64 50 60 C48 64 40 72 30 66 C16 58 20 38 50 14 Z',
      p.main,
      stroke(p.ink, 3),
    ) + path('M47 58 H53 L60 86 H40 Z', p.main, stroke(p.ink, 3)),
);
// cut gems
const gemRound = m(
  'Round gem',
  (p) =>
    circle(50, 50, 32, p.main, stroke(p.ink, 3)) +
    `<polygon points="${starPoints(50, 50, 30, 18, 8)}" fill="none"${stroke(p.hi, 2)}/>` +
    circle(50, 50, 12, p.hi, ' opacity="0.6"'),
);
const gemSquare = m(
  'Square gem',
  (p) =>
    path('M22 22 H78 V78 H22 Z', p.main, stroke(p.ink, 3)) +
    path('M34 34 H66 V66 H34 Z', p.hi, ' opacity="0.5"') +
    lines('M22 22 L34 34 M78 22 L66 34 M78 78 L66 66 M22 78 L34 66', p.hi, 2),
);
const gemTriangle = m(
  'Triangle gem',
  (p) =>
    path('M50 14 L86 80 H14 Z', p.main, stroke(p.ink, 3)) +
    path('M50 38 L66 68 H34 Z', p.hi, ' opacity="0.55"'),
);
const gemHex = m(
  'Hexagon gem',
  (p) =>
    path('M50 14 L81 32 V68 L50 86 L19 68 V32 Z', p.main, stroke(p.ink, 3)) +
    path('M50 30 L67 40 V60 L50 70 L33 60 V40 Z', p.hi, ' opacity="0.5"'),
);
// runes carved on stones
const rune = (label: string, d: string): Motif =>
  m(
    label,
    (p) =>
      path('M20 14 H80 C86 40 86 60 80 86 H20 C14 60 14 40 20 14 Z', p.second, stroke(p.ink, 3)) +
      lines(d, p.main, 8),
  );
const fehu = rune('Fehu rune', 'M40 22 V78 M40 40 L62 26 M40 56 L62 42');
const uruz = rune('Uruz rune', 'M36 78 V24 L64 38 V78');
const thurisaz = rune('Thurisaz rune', 'M40 22 V78 M40 34 L60 50 L40 66');
const ansuz = rune('Ansuz rune', 'M40 22 V78 M40 26 L62 40 M40 44 L62 58');
const raido = rune('Raido rune', 'M38 78 V22 L60 34 L38 48 L62 78');
const kenaz = rune('Kenaz rune', 'M62 22 L38 50 L62 78');
const gebo = rune('Gebo rune', 'M30 24 L70 76 M70 24 L30 76');
const algiz = rune('Algiz rune', 'M50 78 V22 M50 48 L30 26 M50 48 L70 26');
const tiwaz = rune('Tiwaz rune', 'M50 78 V22 M30 42 L50 22 L70 42');
const othala = rune('Othala rune', 'M30 78 L64 46 L50 24 L36 46 L70 78');
const sowilo = rune('Sowilo rune', 'M60 20 L36 42 L64 58 L40 80');
const berkano = rune('Berkano rune', 'M38 22 V78 M38 22 L60 36 L38 50 L60 64 L38 78');

// ── titles ──────────────────────────────────────────────────────────────────────────────────────

interface TitleArt {
  readonly palette: Palette;
  /** H1..H4 */
  readonly high: readonly [Motif, Motif, Motif, Motif];
  /** L1..L4 */
  readonly low: readonly [Motif, Motif, Motif, Motif];
  /** low symbols use a softer palette (their own motif colours) */
  readonly lowPalette: Palette;
}

const pal = (
  bg0: string,
  bg1: string,
  main: string,
  second: string,
  hi: string,
  ink: string,
  frame: string,
) => ({
  bg0,
  bg1,
  main,
  second,
  hi,
  ink,
  frame,
});

const TITLES: Readonly<Record<string, TitleArt>> = {
  vs20emberfox: {
    palette: pal('#5a1e0c', '#1e0804', '#e8641c', '#ffb347', '#fff1d6', '#2a0d04', '#f2b33d'),
    lowPalette: pal('#3b1a12', '#160806', '#d9482b', '#5a2a1a', '#ffd9a8', '#1a0804', '#8a4a2a'),
    high: [fox, flame, coin, gem],
    low: [heart, diamond, club, spade],
  },
  vs25tidalpearl: {
    palette: pal('#0e4d6e', '#031a2a', '#2fb5c9', '#e7d8c9', '#fff8ef', '#06222f', '#d9c089'),
    lowPalette: pal('#0b3550', '#02121d', '#f08c6c', '#1d6f8c', '#ffe2d2', '#031520', '#3f7c94'),
    high: [pearl, shell, anchor, wave],
    low: [starfish, fish, bubbles, droplet],
  },
  vs10glacierrun: {
    palette: pal('#3e7fae', '#0d2338', '#dff3ff', '#7cc3ee', '#ffffff', '#0b2b44', '#bfe6ff'),
    lowPalette: pal('#29506e', '#0a1a28', '#9fd6f4', '#345c7a', '#ffffff', '#081826', '#5d89a8'),
    high: [mountain, snowflake, crystal, pine],
    low: [heart, diamond, club, spade],
  },
  vs40jadelantern: {
    palette: pal('#23160e', '#0a0503', '#d8342c', '#2f9e6c', '#ffd86b', '#1a0806', '#e0b04a'),
    lowPalette: pal('#0f2a1f', '#04100b', '#3fbf88', '#16503a', '#c9ffe6', '#03140d', '#2f7a5a'),
    high: [lantern, jadeCoin, lotus, moon],
    low: [gemRound, gemSquare, gemTriangle, gemHex],
  },
  vs243copperkiln: {
    palette: pal('#4a2a18', '#170b05', '#c8733a', '#7a3e1d', '#ffc58f', '#220f05', '#d98f4e'),
    lowPalette: pal('#33261f', '#100b08', '#b5652f', '#5a4436', '#f3c7a1', '#140c07', '#7d5a44'),
    high: [vase, ingot, hammer, flame],
    low: [heart, diamond, club, spade],
  },
  vs20starorchard: {
    palette: pal('#2a1850', '#0c0620', '#ffd23f', '#5cbf4a', '#fff6c2', '#170a30', '#ffd23f'),
    lowPalette: pal('#1e2a4a', '#080c1c', '#8e4fd6', '#3f9a3a', '#f4e3ff', '#0a0a1a', '#4a5a8a'),
    high: [starM, apple, cherry, pear],
    low: [plum, grapes, lemon, leaf],
  },
  vs20frostwolf: {
    palette: pal('#2c3a52', '#0a0f1a', '#b8c4d6', '#6b7d99', '#e8f4ff', '#0b1220', '#9fc3e8'),
    lowPalette: pal('#232b38', '#090c12', '#7fd1ff', '#4b5566', '#d8f1ff', '#06090f', '#55657d'),
    high: [wolf, moon, paw, snowflake],
    low: [fehu, uruz, thurisaz, ansuz],
  },
  vs25northlight: {
    palette: pal('#0e2f3a', '#020a12', '#5cf2a8', '#7b6cf6', '#c9fff0', '#04121a', '#7be8c9'),
    lowPalette: pal('#102436', '#030a12', '#72e6c4', '#344a63', '#dafff4', '#020810', '#3f6a80'),
    high: [aurora, starM, pine, moon],
    low: [raido, kenaz, gebo, algiz],
  },
  vs30fjordhoard: {
    palette: pal('#2e3b45', '#0b1115', '#a8b4bd', '#8a5a30', '#f2d16b', '#0d1418', '#d4a94a'),
    lowPalette: pal('#2a3230', '#0b0f0e', '#e0b25a', '#55615c', '#fff0c8', '#0a0d0c', '#6b7a72'),
    high: [helmet, axe, shield, longship],
    low: [tiwaz, othala, sowilo, berkano],
  },
  vs50rimevault: {
    palette: pal('#3a2a5c', '#0e0820', '#c9b8ff', '#7fd6ff', '#ffffff', '#120a26', '#e6d7ff'),
    lowPalette: pal('#2a2a48', '#0a0a1a', '#a58cff', '#46467a', '#efe8ff', '#08081a', '#5e5e9a'),
    high: [crown, key, vault, gem],
    low: [heart, diamond, club, spade],
  },
};

function tile(p: Palette, frame: string, frameWidth: number, body: string): string {
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">',
    '<defs><radialGradient id="g" cx="50%" cy="40%" r="70%">',
    `<stop offset="0" stop-color="${p.bg0}"/><stop offset="1" stop-color="${p.bg1}"/>`,
    '</radialGradient></defs>',
    `<rect x="3" y="3" width="94" height="94" rx="16" fill="url(#g)" stroke="${frame}" stroke-width="${frameWidth}"/>`,
    body,
    '</svg>',
  ].join('');
}

function wildBody(p: Palette, motif: Motif): string {
  return (
    star(50, 50, 46, 30, 12, p.frame, ' opacity="0.35"') +
    `<g transform="translate(30 6) scale(0.4)" opacity="0.9">${motif.draw(p)}</g>` +
    lines('M18 46 L32 84 L50 58 L68 84 L82 46', p.ink, 13) +
    lines('M18 46 L32 84 L50 58 L68 84 L82 46', p.frame, 7)
  );
}

function scatterBody(p: Palette, motif: Motif): string {
  const rays = Array.from({ length: 12 }, (_, i) => i * 30)
    .map((a) => `<g transform="rotate(${a} 50 50)">${path('M47 4 H53 L50 16 Z', p.frame)}</g>`)
    .join('');
  return (
    rays +
    circle(50, 50, 32, p.ink, stroke(p.frame, 4)) +
    ring(50, 50, 26, p.hi, 1.5) +
    `<g transform="translate(22 22) scale(0.56)">${motif.draw(p)}</g>`
  );
}

interface Drawn {
  svg: string;
  label: string;
}
const cache = new Map<string, Map<string, Drawn>>();

function draw(gameSymbol: string): Map<string, Drawn> | undefined {
  const hit = cache.get(gameSymbol);
  if (hit) return hit;
  const t = Object.hasOwn(TITLES, gameSymbol) ? TITLES[gameSymbol] : undefined;
  if (!t) return undefined;
  const out = new Map<string, Drawn>();
  out.set('WILD', {
    svg: tile(t.palette, t.palette.frame, 5, wildBody(t.palette, t.high[0])),
    label: 'Wild',
  });
  out.set('SCATTER', {
    svg: tile(t.palette, t.palette.frame, 5, scatterBody(t.palette, t.high[1])),
    label: 'Scatter',
  });
  t.high.forEach((motif, i) => {
    out.set(`H${i + 1}`, {
      svg: tile(t.palette, t.palette.frame, 3, motif.draw(t.palette)),
      label: motif.label,
    });
  });
  t.low.forEach((motif, i) => {
    out.set(`L${i + 1}`, {
      svg: tile(t.lowPalette, t.lowPalette.frame, 2, motif.draw(t.lowPalette)),
      label: motif.label,
    });
  });
  cache.set(gameSymbol, out);
  return out;
}

/** The SVG document of one symbol of one title, or undefined for an unknown title or name. */
export function symbolSvg(gameSymbol: string, name: string): string | undefined {
  return draw(gameSymbol)?.get(name)?.svg;
}

/**
 * A symbol's spoken name on the page (the title's own word for it: "Fox", "Pearl", "Wild"), or
 * undefined for an unknown title or name.
 */
export function symbolLabel(gameSymbol: string, name: string): string | undefined {
  return draw(gameSymbol)?.get(name)?.label;
}
