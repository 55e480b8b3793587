import Router from '@koa/router';
import { GameArtQuery } from '@opi/contract';
import { etagFor, renderFallbackSvg } from '@opi/games';
import { notFound } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { ApiDeps } from '../deps.js';

/** Symbols and slugs are simple tokens; anything else never reaches a lookup. */
export const SAFE_SYMBOL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * GET /api/provider/v1/game-art/{symbol}: public. The uploaded image for the format when one
 * exists (its content type sniffed from the bytes at upload), else a generated SVG. `operator_id`
 * only selects that operator's format preference; it is not authorization.
 */
export function artworkRoutes(deps: ApiDeps): Router {
  const router = new Router();
  router.get('/api/provider/v1/game-art/:symbol', async (ctx) => {
    const symbol = ctx.params.symbol ?? '';
    if (!SAFE_SYMBOL.test(symbol) || symbol.includes('..')) throw notFound('game');
    const query = parseOr422(GameArtQuery, flatQuery(ctx.query), 'query');
    const { rows } = await deps.pool.query<{
      symbol: string;
      title: string;
      provider: string;
      family: string | null;
    }>(`SELECT symbol, title, provider, family FROM games WHERE symbol = $1 OR slug = $1 LIMIT 1`, [symbol]);
    const game = rows[0];
    let format = query.thumbnail_format;
    if (!format && query.operator_id) {
      const pref = await deps.pool.query<{ artwork_format: 'vertical' | 'horizontal' }>(
        `SELECT artwork_format FROM operators WHERE operator_id = $1`,
        [query.operator_id],
      );
      format = pref.rows[0]?.artwork_format;
    }
    format ??= 'vertical';

    let body: Buffer;
    let type: string;
    if (game) {
      const uploaded = await deps.pool.query<{ content_type: string; bytes: Buffer }>(
        `SELECT content_type, bytes FROM game_artwork WHERE symbol = $1 AND format = $2`,
        [game.symbol, format],
      );
      const art = uploaded.rows[0];
      if (art) {
        body = art.bytes;
        type = art.content_type;
      } else {
        body = Buffer.from(
          renderFallbackSvg({
            accent: game.symbol,
            title: game.title,
            provider: game.provider,
            ...(game.family ? { family: game.family } : {}),
            format,
          }),
        );
        type = 'image/svg+xml';
      }
    } else if (query.title) {
      body = Buffer.from(
        renderFallbackSvg({ accent: symbol, title: query.title, provider: query.provider_id ?? '', format }),
      );
      type = 'image/svg+xml';
    } else {
      throw notFound('game');
    }
    const etag = etagFor(body);
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (type === 'image/svg+xml')
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    if (ctx.get('if-none-match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = type;
    ctx.body = body;
  });
  return router;
}
