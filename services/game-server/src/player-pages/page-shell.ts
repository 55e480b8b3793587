import { escapeHtml } from '@opi/play/pages/page-headers';
import type { StaticAsset } from '@opi/play/pages/static-assets';
import { type RealityCheckAssets, sharedScriptTags } from '@opi/play/sessions/reality-check-page';
import { type HistoryAssets, historyScriptTag, historyStyleTag } from '../history/page.js';

/**
 * The one page shell of the player pages (slot, native, crash, replay; issue 36 point 3): the
 * document up to `</head>`: the language, the viewport, no referrer, not indexed, the title, then
 * the style sheets (the shared reality check's, the history panel's, the page's own last so its
 * styles win) and the deferred scripts in the order they need each other (money, balance keeper,
 * reality check, history, the page's own). Every path is a content-hashed static file of the one
 * loader (@opi/play/pages/static-assets); nothing inline, as the pages' CSP wants.
 */
export function pageHead(
  title: string,
  lang: string,
  assets: { css: StaticAsset; js?: StaticAsset; realityCheck?: RealityCheckAssets; history?: HistoryAssets },
): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
${assets.realityCheck ? `<link rel="stylesheet" href="${escapeHtml(assets.realityCheck.css.path)}">\n` : ''}${historyStyleTag(assets.history)}<link rel="stylesheet" href="${escapeHtml(assets.css.path)}">
${sharedScriptTags(assets.realityCheck, escapeHtml)}${historyScriptTag(assets.history)}${assets.js ? `<script src="${escapeHtml(assets.js.path)}" defer></script>\n` : ''}</head>`;
}
