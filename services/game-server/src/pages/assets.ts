import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadRealityCheckAssets, type RealityCheckAssets } from '@opi/play/sessions/reality-check-page';
import { type HistoryAssets, loadHistoryAssets } from '../history/page.js';

export interface PageAsset {
  /** `/gs2c/static/<name>-<content hash>.<ext>`: a new file gets a new URL, so it is cached for good. */
  path: string;
  type: string;
  body: Buffer;
}

/**
 * The page's script and style sheet are served as written (no build step). They live beside the
 * source, and dist/ has no copy, so they are read from `src/pages/static/` both when running the
 * source and when running dist/ (the package keeps src/ either way).
 */
const STATIC_DIR = new URL('../../src/pages/static/', import.meta.url);

function load(name: string, ext: string, type: string): PageAsset {
  const body = readFileSync(new URL(`${name}.${ext}`, STATIC_DIR));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/gs2c/static/${name}-${hash}.${ext}`, type, body };
}

export interface PageAssets {
  js: PageAsset;
  css: PageAsset;
  /** The shared session bar and reality check (script and style sheet), under `/gs2c/static/`. */
  realityCheck: RealityCheckAssets;
  /** The shared history panel (script and style sheet), under `/gs2c/static/`. */
  history: HistoryAssets;
  /** By URL path. */
  byPath: Map<string, PageAsset>;
}

export function loadPageAssets(): PageAssets {
  const js = load('game', 'js', 'text/javascript; charset=utf-8');
  const css = load('game', 'css', 'text/css; charset=utf-8');
  const realityCheck = loadRealityCheckAssets('/gs2c/static/');
  const history = loadHistoryAssets('/gs2c/static/');
  const all = [
    js,
    css,
    realityCheck.js,
    realityCheck.css,
    realityCheck.balance,
    realityCheck.money,
    history.js,
    history.css,
  ];
  return { js, css, realityCheck, history, byPath: new Map(all.map((a) => [a.path, a])) };
}
