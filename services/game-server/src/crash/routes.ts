import Router from '@koa/router';
import { CLIENT_SEED, findEntry, presentFairnessRecord } from '@opi/games';
import { serveStaticAsset } from '@opi/play/pages/static-assets';
import { refuseAutoBet } from '@opi/play/sessions/gb-rules';
import { findCrashSession } from '@opi/play/sessions/runtime-session';
import { hashLaunchToken } from '@opi/play/sessions/tokens';
import { readBody } from '@opi/service-kit/http/body';
import { clientAddress } from '@opi/service-kit/http/client-address';
import { notFound, unauthorized } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware, Next } from 'koa';
import { z } from 'zod';
import type { GameDeps } from '../deps.js';
import { checkLoginGrant, exchangeLoginGrant } from './authorization.js';
import { createDemoSession, findDemoSession } from './demo.js';
import { crashPageHeaders, loadCrashAssets, renderCrashError, renderCrashPage } from './page.js';
import { type Actor, crashRuntime, type RoundRow } from './runtime.js';

export const BetRequest = z.object({
  /** The stake in minor units of the session currency (an integer, or a string of digits). */
  stake_minor: z.union([z.number().int().positive(), z.string().regex(/^[1-9][0-9]{0,17}$/)]),
  /** The player's client seed, 1-64 printable ASCII characters without spaces. */
  client_seed: z.string().regex(CLIENT_SEED),
  /** The commitment the page showed (SHA-256 of the round's server seed); it must still be current. */
  commitment: z.string().regex(/^[0-9a-f]{64}$/),
  /** Optional automatic cash-out multiplier, e.g. '2.00'. */
  auto_cashout: z.union([z.string().max(12), z.number()]).nullish(),
});
export const CashoutRequest = z.object({ round_id: z.string().min(1).max(64) });
export const DemoRequest = z.object({ slug: z.string().min(1).max(64) });

const ROUND_ID = /^r_[0-9a-f-]{36}$/;

function presentedToken(ctx: Context): string | undefined {
  const header = ctx.get('x-session-token');
  if (header) return header;
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
}

/**
 * Crash runtime routes accept only a crash page's own token: a session authorization (from the
 * login grant exchange) or a demo session's token. The launch URL's login grant itself is not a
 * runtime token. Expired, revoked or superseded authorizations are 401.
 */
export function authenticateCrash(deps: GameDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    const token = presentedToken(ctx);
    if (!token || token.length > 128) throw unauthorized('Missing or invalid session token');
    const session = await findCrashSession(deps.pool, hashLaunchToken(token));
    let actor: Actor;
    if (session) {
      if (session.status !== 'active') throw unauthorized('The session was revoked: open the game again');
      actor = { kind: 'wallet', session };
    } else {
      const demo = await findDemoSession(deps.pool, token);
      if (!demo) throw unauthorized('Missing, expired or revoked session token: open the game again');
      actor = { kind: 'demo', demo };
    }
    ctx.state.actor = actor;
    ctx.set('Cache-Control', 'no-store');
    await next();
  };
}

/** A prov_d title by slug (or symbol), else undefined. */
function crashTitle(slug: string) {
  const entry = findEntry(slug);
  return entry && entry.provider_id === 'prov_d' ? entry : undefined;
}

/**
 * Everything of the crash titles: the pages (`/games/<slug>/`, `/games/<slug>/demo`, their
 * static files, the public fairness record of a finished round), the runtime routes
 * (`/api/runtime/crash/...`) and the admin revoke route.
 */
export function crashRoutes(deps: GameDeps): Router[] {
  const runtime = crashRuntime(deps);
  const assets = loadCrashAssets();

  // ── pages ─────────────────────────────────────────────────────────────────────────────────
  const pages = new Router({ prefix: '/games' });
  pages.get('/assets/:file', serveStaticAsset(assets.byPath));
  pages.get('/fairness/:round_id', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const id = ctx.params.round_id ?? '';
    if (!ROUND_ID.test(id)) throw notFound('round');
    const { rows } = await deps.pool.query<RoundRow>(
      `SELECT cr.*, trim(cr.currency) AS currency, ch.terminal_hash, ch.length AS chain_length,
              ch.created_at AS chain_created_at
       FROM crash_rounds cr JOIN crash_seed_chains ch ON ch.chain_id = cr.chain_id
       WHERE cr.round_id = $1 AND cr.server_seed IS NOT NULL`,
      [id],
    );
    if (!rows[0]) throw notFound('round', 'or not finished');
    ctx.body = { success: true, data: presentFairnessRecord(rows[0]) };
  });
  /** The page's headers and its title; an unknown one gets the 404 page (and undefined). */
  const pageTitle = (ctx: Context) => {
    crashPageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    const entry = crashTitle(ctx.params.slug ?? '');
    if (!entry) {
      ctx.status = 404;
      ctx.body = renderCrashError('unknown', assets);
    }
    return entry;
  };
  pages.get('/:slug/demo', (ctx) => {
    const entry = pageTitle(ctx);
    if (!entry) return;
    ctx.body = renderCrashPage({ title: entry.title, slug: entry.slug, lang: null, mode: 'demo' }, assets);
  });
  pages.get('/:slug/', async (ctx) => {
    const entry = pageTitle(ctx);
    if (!entry) return;
    const login = ctx.query.login;
    if (login === undefined) {
      // A reload after the exchange: the page resumes with the tab's stored session token.
      ctx.body = renderCrashPage(
        { title: entry.title, slug: entry.slug, lang: null, mode: 'resume' },
        assets,
      );
      return;
    }
    const grant =
      typeof login === 'string'
        ? await checkLoginGrant(deps.pool, login, entry.slug)
        : ({ ok: false, status: 400, reason: 'malformed' } as const);
    if (!grant.ok) {
      ctx.status = grant.status;
      ctx.body = renderCrashError(grant.reason, assets);
      return;
    }
    ctx.body = renderCrashPage(
      { title: grant.title, slug: grant.slug, lang: grant.lang, mode: 'launch' },
      assets,
    );
  });

  // ── runtime ───────────────────────────────────────────────────────────────────────────────
  const api = new Router({ prefix: '/api/runtime/crash' });
  const guard = [readBody(), authenticateCrash(deps)];
  const actor = (ctx: Context) => ctx.state.actor as Actor;

  /** The page exchanges the launch URL's login grant (5 minutes) for its one-hour session token. */
  api.post('/authorize', readBody(), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const body = (ctx.state.body ?? {}) as { login?: unknown };
    const login = ctx.get('x-login-grant') || (typeof body.login === 'string' ? body.login : '');
    const granted = await exchangeLoginGrant(deps.pool, login);
    ctx.body = {
      session_token: granted.session_token,
      session_id: granted.session_id,
      authorized_until: granted.authorized_until.toISOString(),
    };
  });
  /**
   * A demo page's play-money session: no operator, no wallet. Limited per client address and in
   * total (crash/demo.ts): 429 or 503 with Retry-After.
   */
  api.post('/demo', readBody(), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const { slug } = parseOr422(DemoRequest, ctx.state.body ?? {}, 'body');
    const entry = crashTitle(slug);
    if (!entry) throw notFound('game');
    const demo = await createDemoSession(deps.pool, entry.symbol, clientAddress(ctx, deps));
    ctx.status = 201;
    ctx.body = { session_token: demo.session_token, expires_at: demo.expires_at.toISOString() };
  });
  api.get('/state', ...guard, async (ctx) => {
    ctx.body = await runtime.state(actor(ctx));
  });
  api.post('/bet', ...guard, async (ctx) => {
    // GB: no autoplay or auto-bet (422 at the field); the automatic cash-out is not a bet.
    const who = actor(ctx);
    if (who.kind === 'wallet') await refuseAutoBet(deps.pool, who.session.session_id, ctx.state.body);
    const input = parseOr422(BetRequest, ctx.state.body ?? {}, 'body');
    ctx.body = await runtime.bet(actor(ctx), input);
  });
  api.post('/cashout', ...guard, async (ctx) => {
    const receivedAt = Date.now();
    const { round_id } = parseOr422(CashoutRequest, ctx.state.body ?? {}, 'body');
    if (!ROUND_ID.test(round_id)) throw notFound('round');
    ctx.body = await runtime.cashout(actor(ctx), round_id, receivedAt);
  });
  api.get('/rounds/:round_id', ...guard, async (ctx) => {
    const id = ctx.params.round_id ?? '';
    if (!ROUND_ID.test(id)) throw notFound('round');
    ctx.body = await runtime.round(actor(ctx), id, ctx.query.wait === '1');
  });

  return [pages, api];
}
