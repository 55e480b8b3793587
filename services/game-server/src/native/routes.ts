import Router from '@koa/router';
import { STORED_RTP } from '@opi/games';
import { currencyExponent } from '@opi/money';
import { gamePageHeaders, queryOne } from '@opi/play/pages/page-headers';
import { serveStaticAsset } from '@opi/play/pages/static-assets';
import { authenticateRuntime } from '@opi/play/sessions/authenticate';
import { readBetsBlocked } from '@opi/play/sessions/bets-blocked';
import { displayFacts } from '@opi/play/sessions/display';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import {
  ladderById,
  ladderStakeFor,
  ladderStakesWithin,
  presentLadder,
} from '@opi/play/sessions/stake-ladders';
import { readBody } from '@opi/service-kit/http/body';
import { conflict, unauthorized } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Context } from 'koa';
import { z } from 'zod';
import type { GameDeps } from '../deps.js';
import { loadNativeAssets, type NativePageProblem, renderNativeErrorPage, renderNativePage } from './page.js';
import { checkGrant, issuePlayToken } from './play-token.js';
import { familyOf, nativeState, placeBet, playAction } from './rounds.js';
import { NATIVE_FAMILY, titleFacts } from './titles.js';

/** The launch URL carries a bearer secret: never cached, never sent as a referrer. */
const pageHeaders = gamePageHeaders;

/** At most this many stakes are offered: 1-2-5 steps within the operator's limits. */
const MAX_STAKES = 30;
export function nativeStakes(min: bigint, max: bigint): string[] {
  const out: string[] = [];
  for (let decade = 1n; decade <= max && out.length < MAX_STAKES; decade *= 10n) {
    for (const step of [1n, 2n, 5n]) {
      const v = decade * step;
      if (v >= min && v <= max && out.length < MAX_STAKES) out.push(v.toString());
    }
  }
  if (out.length === 0) out.push(min.toString());
  return out;
}

const ExchangeRequest = z.object({ grant: z.string().min(1).max(128) });

/**
 * prov_c native titles: the page at `/native/<slug>/?grant=...` (the launch URL), its static files,
 * and the runtime routes under `/api/runtime/native/`: the grant exchange (no session token yet),
 * then state, bet and action with the play token in `x-session-token`.
 */
export function nativeRoutes(deps: GameDeps): Router {
  const assets = loadNativeAssets();
  const router = new Router();
  const guard = [readBody(), authenticateRuntime(deps)];
  const sessionOf = (ctx: Context) => ctx.state.session as RuntimeSession;

  router.get('/native/static/:file', serveStaticAsset(assets.byPath));

  const page = async (ctx: Context) => {
    pageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    const fail = (status: number, reason: NativePageProblem) => {
      ctx.status = status;
      ctx.body = renderNativeErrorPage(reason, assets);
    };
    if (Array.isArray(ctx.query.grant)) return fail(400, 'malformed');
    const grant = await checkGrant(deps.pool, queryOne(ctx.query.grant));
    if (!grant.ok) return fail(401, grant.problem);
    const s = grant.session;
    if (ctx.params.slug !== s.slug && ctx.params.slug !== s.symbol) return fail(400, 'malformed');
    const family = NATIVE_FAMILY[s.symbol];
    if (!family) return fail(401, 'invalid');
    ctx.body = renderNativePage({ title: s.title, lang: s.lang, family, symbol: s.symbol }, assets);
  };
  router.get('/native/:slug/', page);
  router.get('/native/:slug', page);

  // The grant (5 minutes) buys a play token for the 30-minute play session. It can be exchanged
  // again while it lasts (a reload); each exchange replaces the session's previous play token.
  router.post('/api/runtime/native/session-from-grant', readBody(), async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const req = parseOr422(ExchangeRequest, ctx.state.body ?? {}, 'body');
    const grant = await checkGrant(deps.pool, req.grant);
    if (!grant.ok) {
      throw unauthorized(
        grant.problem === 'invalid'
          ? 'The launch grant is not valid: open the game again'
          : 'The launch grant has expired: open the game again',
        { reason: grant.problem },
      );
    }
    const s = grant.session;
    const family = NATIVE_FAMILY[s.symbol];
    if (!family) throw conflict('This title is not played through the native runtime');
    const token = await issuePlayToken(deps.pool, s);
    const { rows } = await deps.pool.query<{ bet_min_minor: bigint; bet_max_minor: bigint }>(
      `SELECT o.bet_min_minor, o.bet_max_minor FROM operators o JOIN sessions s ON s.operator_id = o.operator_id
       WHERE s.session_id = $1`,
      [s.session_id],
    );
    const session = await sessionForToken(deps, s.session_id);
    // A session frozen with a stake ladder (issue 39: a crypto currency) offers its stakes.
    const ladder = session.stake_ladder_id ? await ladderById(deps.pool, session.stake_ladder_id) : null;
    const ladderStakes = ladder
      ? ladderStakesWithin(ladder, rows[0]!.bet_min_minor, rows[0]!.bet_max_minor)
      : [];
    const stakes =
      ladderStakes.length > 0 ? ladderStakes : nativeStakes(rows[0]!.bet_min_minor, rows[0]!.bet_max_minor);
    // The ladder's default: the stake derived from EUR 1 (the reference ladder's 100), else its middle.
    const ladderDefault = ladder ? ladderStakeFor(ladder, 100n) : undefined;
    ctx.body = {
      token,
      expires_at: s.expires_at?.toISOString() ?? null,
      session: {
        session_id: s.session_id,
        symbol: s.symbol,
        slug: s.slug,
        title: s.title,
        family,
        currency: s.currency,
        exponent: currencyExponent(s.currency),
        display: displayFacts(s),
        lang: s.lang,
        return_url: s.return_url,
      },
      rtp: STORED_RTP[s.symbol as keyof typeof STORED_RTP],
      stakes_minor: stakes,
      default_stake_minor:
        ladderStakes.length > 0
          ? ladderDefault && ladderStakes.includes(ladderDefault)
            ? ladderDefault
            : ladderStakes[Math.floor(ladderStakes.length / 2)]
          : (stakes.find((v) => BigInt(v) >= 100n) ?? stakes[0]),
      stake_ladder: ladder ? presentLadder(ladder) : null,
      ...titleFacts(family),
      ...(await nativeState(deps, session)),
    };
  });

  router.get('/api/runtime/native/state', ...guard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await nativeState(deps, sessionOf(ctx));
  });
  router.post('/api/runtime/native/bet', ...guard, async (ctx) => {
    familyOf(sessionOf(ctx));
    ctx.set('Cache-Control', 'no-store');
    const round = await placeBet(deps, sessionOf(ctx), ctx.state.body);
    // A refused debit may have stopped the session's bets (player protection).
    const bets_blocked =
      round.status === 'rejected' ? await readBetsBlocked(deps.pool, sessionOf(ctx).session_id) : null;
    ctx.body = { round, bets_blocked };
  });
  router.post('/api/runtime/native/action', ...guard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { round: await playAction(deps, sessionOf(ctx), ctx.state.body) };
  });
  return router;
}

/**
 * The runtime view of a session (as sessions/authenticate.ts builds it), for the exchange's first
 * state read.
 */
async function sessionForToken(deps: GameDeps, sessionId: string): Promise<RuntimeSession> {
  const { rows } = await deps.pool.query<RuntimeSession>(
    `SELECT s.session_id, s.operator_id, p.external_player_id, s.player_id, s.symbol, s.provider_id,
            trim(s.currency) AS currency, s.return_url, s.coin_minor, s.device, s.lang, s.expires_at,
            s.stake_ladder_id
     FROM sessions s JOIN players p ON p.player_id = s.player_id WHERE s.session_id = $1`,
    [sessionId],
  );
  return rows[0]!;
}
