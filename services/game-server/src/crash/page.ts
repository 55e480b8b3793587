import { escapeHtml, GAME_PAGE_CSP, gamePageHeaders, pageLang } from '@opi/play/pages/page-headers';
import type { StaticAsset } from '@opi/play/pages/static-assets';
import { realityCheckDialog, sessionPlayBar } from '@opi/play/sessions/reality-check-page';
import { historyButton, historyPanel } from '../history/page.js';
import { type GamePageAssets, loadGamePageAssets } from '../player-pages/game-page-assets.js';
import { GAME_PAGE_END, pageHead, panelBasics, unavailablePage } from '../player-pages/page-shell.js';

/** `/games/assets/<name>-<content hash>.<ext>`: a changed file gets a new URL, so it is cached for good. */
export type CrashAsset = StaticAsset;

/** The page's own script and style sheet, the shared reality check and history, under `/games/assets/`. */
export type CrashAssets = GamePageAssets;

export function loadCrashAssets(): CrashAssets {
  return loadGamePageAssets('crash/static', '/games/assets/', 'crash');
}

/**
 * Same-origin script and styles only, no inline code, calls to the own origin only, and no HTML
 * string sinks (Trusted Types with no policy). Framing stays open: operators may embed the game.
 */
export const CRASH_PAGE_CSP = GAME_PAGE_CSP;

/** The launch URL carries a bearer secret: never cached, never sent on as a referrer. */
export const crashPageHeaders = gamePageHeaders;

export { escapeHtml };

const lang = pageLang;

/** The page's document up to `</head>`: the player pages' one shell. */
const head = pageHead;

/**
 * The crash page: server-rendered markup that the same-origin script fills in. `mode` tells the
 * script where its token comes from: `launch` (exchange the URL's login grant), `resume` (the
 * tab's stored session token) or `demo` (a play-money session). No token is ever written into
 * the HTML.
 */
export function renderCrashPage(
  page: { title: string; slug: string; lang: string | null; mode: 'launch' | 'resume' | 'demo' },
  assets: CrashAssets,
): string {
  const demo = page.mode === 'demo';
  return `${head(demo ? `${page.title} (demo)` : page.title, lang(page.lang), assets)}
<body>
<main class="crash" data-testid="game" data-state="loading" data-mode="${page.mode}" data-slug="${escapeHtml(page.slug)}">
  <header class="bar">
    <h1 class="title">${escapeHtml(page.title)}${demo ? ' <span class="badge" data-testid="demo-badge">Demo &middot; play money</span>' : ''}</h1>
    ${demo ? '' : historyButton()}
    <button type="button" class="close" data-testid="close-button" hidden disabled>Close</button>
  </header>
  ${sessionPlayBar({ hidden: demo })}
  <section class="stage" aria-label="Multiplier">
    <output class="multiplier" data-testid="multiplier" data-state="idle" data-cents="100" aria-live="off">1.00&times;</output>
    <p class="message" data-testid="game-message" role="status" aria-live="polite"></p>
  </section>
  <p class="error" data-testid="game-error" role="alert" hidden></p>
  <section class="panel" data-testid="controls" aria-label="Game controls">
    ${panelBasics()}
    <label class="field"><span class="label">Auto cash-out</span><input data-testid="auto-cashout" inputmode="decimal" placeholder="off" autocomplete="off" disabled></label>
    <div class="buttons">
      <button type="button" class="bet" data-testid="bet-button" disabled>Bet</button>
      <button type="button" class="cashout" data-testid="cashout-button" disabled>Cash out</button>
    </div>
  </section>
  <section class="fairness" data-testid="fairness" aria-label="Provably fair">
    <h2>Provably fair</h2>
    <dl>
      <dt>Commitment of the round (SHA-256 of its server seed, shown before the bet)</dt><dd><code data-testid="commitment">&#8230;</code></dd>
      <dt>Nonce (chain position)</dt><dd><code data-testid="nonce">&#8230;</code></dd>
      <dt>Chain terminal hash</dt><dd><code data-testid="chain-terminal">&#8230;</code></dd>
      <dt><label for="client-seed">Your client seed</label></dt><dd><input id="client-seed" data-testid="client-seed" maxlength="64" spellcheck="false" autocomplete="off" disabled></dd>
      <dt>Last round</dt><dd><code data-testid="round-id">&#8212;</code></dd>
      <dt>Last crash point</dt><dd><code data-testid="crash-point">&#8212;</code></dd>
      <dt>Last revealed server seed</dt><dd><code data-testid="revealed-seed">&#8212;</code></dd>
    </dl>
    <p class="hint">After a round its server seed is revealed: its SHA-256 is the commitment shown before the bet, and it becomes the next round's commitment. Check a round with <code>npm run crash-verify -- &lt;round id&gt;</code>.</p>
  </section>
  ${realityCheckDialog()}
  ${demo ? '' : historyPanel()}
${GAME_PAGE_END}`;
}

const ERROR_TEXT = {
  invalid: 'This game link is not valid. Please open the game again from the casino.',
  expired: 'This game link has expired. Please open the game again from the casino.',
  malformed: 'This game link was changed. Please open the game again from the casino.',
  unknown: 'This game does not exist.',
} as const;

/** A link that opens no game: the message and no game controls, no script. */
export function renderCrashError(
  reason: keyof typeof ERROR_TEXT,
  assets: { css: CrashAsset; base?: CrashAsset },
): string {
  return unavailablePage('crash', ERROR_TEXT[reason], assets);
}
