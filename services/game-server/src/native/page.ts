import { escapeHtml, GAME_PAGE_CSP, pageLang } from '@opi/play/pages/page-headers';
import type { StaticAsset } from '@opi/play/pages/static-assets';
import { realityCheckDialog, sessionPlayBar } from '@opi/play/sessions/reality-check-page';
import { historyButton, historyPanel } from '../history/page.js';
import { type GamePageAssets, loadGamePageAssets } from '../player-pages/game-page-assets.js';
import { GAME_PAGE_END, pageHead, panelBasics, unavailablePage } from '../player-pages/page-shell.js';
import type { NativeFamily } from './titles.js';

/** `/native/static/<name>-<content hash>.<ext>`: a changed file gets a new URL, so it is cached for good. */
export type NativeAsset = StaticAsset;

/** The page's own script and style sheet, the shared reality check and history, under `/native/static/`. */
export type NativeAssets = GamePageAssets;

export function loadNativeAssets(): NativeAssets {
  return loadGamePageAssets('native/static', '/native/static/', 'native');
}

/**
 * Same-origin script and styles only, no inline code, no HTML string sinks (Trusted Types with no
 * policy), calls only to its own origin. Framing is left to the operator (an iframe of its site).
 */
export const NATIVE_PAGE_CSP = GAME_PAGE_CSP;

export { escapeHtml };

/** The page's document up to `</head>`: the player pages' one shell. */
const head = pageHead;

/** The title-specific board, filled in by the script. */
function board(family: NativeFamily): string {
  if (family === 'mines') {
    const cells = Array.from(
      { length: 25 },
      (_, i) =>
        `<button type="button" class="cell" data-testid="mine-cell-${i}" data-cell="${i}" data-state="hidden" aria-label="Cell ${i + 1}" disabled></button>`,
    ).join('');
    return `<section class="board mines" data-testid="mines-board" aria-label="Mines field">${cells}</section>
  <section class="options">
    <label class="field"><span class="label">Mines</span><select data-testid="mines-select" disabled></select></label>
    <div class="stat"><span class="label">Next</span><output data-testid="next-multiplier">&#8212;</output></div>
  </section>`;
  }
  if (family === 'hilo') {
    return `<section class="board hilo" aria-label="Cards">
    <div class="card" data-testid="hilo-card" data-card="" data-rank="">?</div>
    <ol class="history" data-testid="hilo-history" aria-label="Cards so far"></ol>
  </section>
  <section class="options guesses">
    <button type="button" class="guess" data-testid="hilo-higher" data-guess="higher" disabled>Higher<small></small></button>
    <button type="button" class="guess" data-testid="hilo-same" data-guess="same" disabled>Same<small></small></button>
    <button type="button" class="guess" data-testid="hilo-lower" data-guess="lower" disabled>Lower<small></small></button>
  </section>`;
  }
  return `<section class="board dice" aria-label="Dice">
    <output class="roll" data-testid="dice-roll" data-roll="">&#8212;</output>
  </section>
  <section class="options">
    <label class="field"><span class="label">Roll under</span><input data-testid="dice-target" type="number" inputmode="decimal" min="1.00" max="98.00" step="0.01" value="50.00" disabled></label>
    <div class="stat"><span class="label">Pays</span><output data-testid="dice-multiplier">&#8212;</output></div>
  </section>`;
}

/**
 * The native page: server-rendered markup, filled in by the same-origin script, which reads the
 * `grant` from the page's own URL and exchanges it for a play token. Tokens never enter the HTML.
 */
export function renderNativePage(
  page: { title: string; lang: string | null; family: NativeFamily; symbol: string },
  assets: NativeAssets,
): string {
  const play = page.family === 'dice' ? 'Roll' : 'Bet';
  return `${head(page.title, pageLang(page.lang), assets)}
<body>
<main class="game" data-testid="game" data-family="${page.family}" data-symbol="${escapeHtml(page.symbol)}" data-state="loading">
  <header class="bar">
    <h1 class="title">${escapeHtml(page.title)}</h1>
    ${historyButton()}
    <button type="button" class="close" data-testid="close-button" hidden disabled>Close</button>
  </header>
  ${sessionPlayBar()}
  ${board(page.family)}
  <p class="message" data-testid="game-message" role="status" aria-live="polite"></p>
  <p class="error" data-testid="game-error" role="alert" hidden></p>
  <section class="panel" data-testid="controls" aria-label="Game controls">
    ${panelBasics(' data-balance=""')}
    <button type="button" class="play" data-testid="play-button" disabled>${play}</button>
    <button type="button" class="cashout" data-testid="cashout-button" disabled${page.family === 'dice' ? ' hidden' : ''}>Cash out</button>
  </section>
  ${realityCheckDialog()}
  ${historyPanel()}
${GAME_PAGE_END}`;
}

const ERROR_TEXT = {
  invalid: 'This game link is not valid. Please open the game again from the casino.',
  expired: 'This game link has expired. Please open the game again from the casino.',
  session_expired: 'This game session has expired. Please open the game again from the casino.',
  malformed: 'This game link was changed. Please open the game again from the casino.',
} as const;
export type NativePageProblem = keyof typeof ERROR_TEXT;

/** A link that opens no game: a message, no controls, no script. */
export function renderNativeErrorPage(
  reason: NativePageProblem,
  assets: { css: NativeAsset; base?: NativeAsset },
): string {
  return unavailablePage('game', ERROR_TEXT[reason], assets, reason);
}
