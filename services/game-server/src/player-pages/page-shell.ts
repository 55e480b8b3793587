import { escapeHtml } from '@opi/play/pages/page-headers';
import type { StaticAsset } from '@opi/play/pages/static-assets';
import { type RealityCheckAssets, sharedScriptTags } from '@opi/play/sessions/reality-check-page';
import { type HistoryAssets, historyScriptTag, historyStyleTag } from '../history/page.js';

/**
 * The one page shell of the player pages (slot, native, crash, replay; issue 36 point 3): the
 * document up to `</head>`: the language, the viewport, no referrer, not indexed, the title, then
 * the style sheets (the shared reality check's, the history panel's, the game pages' shared base,
 * the page's own last so its styles win) and the deferred scripts in the order they need each other (money, balance keeper,
 * reality check, history, the page's own). Every path is a content-hashed static file of the one
 * loader (@opi/play/pages/static-assets); nothing inline, as the pages' CSP wants.
 */
export function pageHead(
  title: string,
  lang: string,
  assets: {
    css: StaticAsset;
    /** The game pages' shared base sheet (`player-pages/static/game-base.css`), just before `css`. */
    base?: StaticAsset;
    js?: StaticAsset;
    realityCheck?: RealityCheckAssets;
    history?: HistoryAssets;
  },
): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
${assets.realityCheck ? `<link rel="stylesheet" href="${escapeHtml(assets.realityCheck.css.path)}">\n` : ''}${historyStyleTag(assets.history)}${assets.base ? `<link rel="stylesheet" href="${escapeHtml(assets.base.path)}">\n` : ''}<link rel="stylesheet" href="${escapeHtml(assets.css.path)}">
${sharedScriptTags(assets.realityCheck, escapeHtml)}${historyScriptTag(assets.history)}${assets.js ? `<script src="${escapeHtml(assets.js.path)}" defer></script>\n` : ''}</head>`;
}

/**
 * What every game page's panel starts with (slot, native, crash), filled in by its script: the
 * balance, the last win and the stake. `balanceAttributes`: more attributes of the balance's
 * output (the native page's ` data-balance=""`).
 */
export function panelBasics(balanceAttributes = ''): string {
  return `<div class="stat"><span class="label">Balance</span><output data-testid="game-balance"${balanceAttributes} data-balance-minor="">&#8230;</output></div>
    <div class="stat"><span class="label">Last win</span><output data-testid="last-win" data-win-minor="">&#8212;</output></div>
    <label class="field"><span class="label">Stake</span><select data-testid="stake-select" disabled></select></label>`;
}

/** How every game page ends after its `main`'s content: no game without JavaScript. */
export const GAME_PAGE_END = `</main>
<noscript><p class="error">This game needs JavaScript.</p></noscript>
</body>
</html>
`;

/**
 * A game page for a link that opens no game (slot, native, crash): the message in the page's own
 * `main` class, no controls, no script. `reason`, when given, is the page's `data-reason`.
 */
export function unavailablePage(
  mainClass: string,
  text: string,
  assets: { css: StaticAsset; base?: StaticAsset },
  reason?: string,
): string {
  const dataReason = reason === undefined ? '' : ` data-reason="${escapeHtml(reason)}"`;
  return `${pageHead('Game unavailable', 'en', { css: assets.css, base: assets.base })}
<body>
<main class="${escapeHtml(mainClass)}" data-state="error">
  <p class="error" data-testid="game-error"${dataReason} role="alert">${escapeHtml(text)}</p>
</main>
</body>
</html>
`;
}
