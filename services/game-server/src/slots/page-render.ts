import { escapeHtml, pageLang } from '@opi/play/pages/page-headers';
import {
  type RealityCheckAssets,
  realityCheckDialog,
  sessionPlayBar,
} from '@opi/play/sessions/reality-check-page';
import { type HistoryAssets, historyButton, historyPanel } from '../history/page.js';
import { GAME_PAGE_END, pageHead, panelBasics, unavailablePage } from '../player-pages/page-shell.js';
import type { PageAsset } from './page-assets.js';

export { escapeHtml, pageLang } from '@opi/play/pages/page-headers';

/** The page's document up to `</head>`: the player pages' one shell. */
const head = pageHead;

/**
 * The slot page: server-rendered markup, filled in by the same-origin script (`static/game.js`),
 * which reads `mgckey` from the page's own URL and calls the runtime routes with it. The token is
 * never written into the HTML.
 */
export function renderGamePage(
  page: { title: string; lang: string | null },
  assets: { css: PageAsset; js: PageAsset; realityCheck: RealityCheckAssets; history?: HistoryAssets },
): string {
  const reelCells = Array.from(
    { length: 15 },
    () => '<div class="cell" data-testid="reel-cell" data-symbol=""></div>',
  ).join('');
  return `${head(page.title, pageLang(page.lang), assets)}
<body>
<main class="game" data-testid="game" data-state="loading">
  <header class="bar">
    <h1 class="title">${escapeHtml(page.title)}</h1>
    ${historyButton()}
    <button type="button" class="close" data-testid="close-button" hidden disabled>Close</button>
  </header>
  <section class="jackpot-ticker" data-testid="jackpot-ticker" aria-label="Jackpots" hidden>
    <span class="label" data-testid="jackpot-name"></span>
    <ul class="jackpot-levels" data-testid="jackpot-levels"></ul>
  </section>
  <section class="tournament" data-testid="tournament" aria-label="Tournament" hidden>
    <div class="tournament-head"><span class="label" data-testid="tournament-name"></span><span data-testid="tournament-ends"></span></div>
    <p data-testid="tournament-me"></p>
    <ol class="tournament-board" data-testid="tournament-board"></ol>
  </section>
  <section class="reels" data-testid="reels" aria-label="Reels">${reelCells}</section>
  <ol class="line-wins" data-testid="line-wins" aria-label="Winning lines" hidden></ol>
  <p class="message" data-testid="game-message" role="status" aria-live="polite"></p>
  <p class="error" data-testid="game-error" role="alert" hidden></p>
  <section class="panel" data-testid="controls" aria-label="Game controls">
    ${panelBasics()}
    <label class="field" data-field="bet-level" hidden><span class="label">Bet level</span><select data-testid="bet-level-select" disabled></select></label>
    <button type="button" class="spin" data-testid="spin-button" disabled>Spin</button>
  </section>
  <section class="free-rounds" data-testid="free-rounds" aria-label="Free rounds" hidden>
    <div class="stat"><span class="label">Free rounds</span><output data-testid="free-rounds-count"></output></div>
    <div class="stat"><span class="label">Stake</span><output data-testid="free-rounds-stake"></output></div>
    <div class="stat"><span class="label">Won so far</span><output data-testid="free-rounds-won" data-won-minor=""></output></div>
    <button type="button" data-testid="free-rounds-decline">Play for money instead</button>
  </section>
  ${sessionPlayBar()}
  ${realityCheckDialog()}
  ${historyPanel()}
  <section class="jackpot-win" data-testid="jackpot-win" role="alertdialog" aria-modal="true" aria-labelledby="jackpot-win-title" hidden>
    <h2 id="jackpot-win-title">Jackpot</h2>
    <p data-testid="jackpot-win-text"></p>
    <button type="button" data-testid="jackpot-win-close">Continue</button>
  </section>
${GAME_PAGE_END}`;
}

const ERROR_TEXT = {
  invalid: 'This game link is not valid. Please open the game again from the casino.',
  expired: 'This game session has expired. Please open the game again from the casino.',
  malformed: 'This game link was changed. Please open the game again from the casino.',
} as const;

/** The page for a grant that does not open a game: a message and no game controls, no script. */
export function renderErrorPage(
  reason: keyof typeof ERROR_TEXT,
  assets: { css: PageAsset; base?: PageAsset },
): string {
  return unavailablePage('game', ERROR_TEXT[reason], assets);
}
