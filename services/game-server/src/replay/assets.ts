import { assetsByPath, loadScriptAndStyle, type StaticAsset, staticDir } from '@opi/play/pages/static-assets';

/** A static file at `/replay/static/<name>-<content hash>.<ext>`: a new file gets a new URL. */
export type PageAsset = StaticAsset;

/** The replay page's script and style sheet, served as written under content-hashed paths. */
export interface ReplayAssets {
  js: PageAsset;
  css: PageAsset;
  /** By URL path (`/replay/static/<name>-<hash>.<ext>`). */
  byPath: Map<string, PageAsset>;
}

export function loadReplayAssets(): ReplayAssets {
  const { js, css } = loadScriptAndStyle(
    staticDir(import.meta.url, 'replay/static'),
    '/replay/static/',
    'replay',
  );
  return { js, css, byPath: assetsByPath([js, css]) };
}
