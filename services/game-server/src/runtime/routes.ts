import Router from '@koa/router';
import { isSlotTitle } from '@opi/games';
import { readBetsBlocked, refusalFacts } from '@opi/play/sessions/bets-blocked';
import { sessionFreeRounds } from '@opi/play/sessions/free-rounds';
import { acknowledgeRealityCheck, sessionRulesFacts } from '@opi/play/sessions/jurisdiction-rules';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { readWalletBalance } from '@opi/play/sessions/wallet-balance';
import { conflict, runtimeNotConfigured } from '@opi/service-kit/http/named-errors';
import type { Middleware } from 'koa';
import type { GameDeps } from '../deps.js';
import { playerHistory } from '../history/history.js';
import { sessionJackpotId } from '../jackpots/ticker.js';
import { sessionTournaments } from '../promotions/tournaments.js';
import { roundStatus } from '../slots/round-status.js';
import { spin } from '../slots/spin.js';
import { eventStream } from './events.js';
import { pageFacts } from './page-facts.js';

/** Runtime routes for the launched game page (never server to server). */
export function runtimeRoutes(deps: GameDeps, guard: Middleware[]): Router {
  const router = new Router({ prefix: '/api/runtime' });
  router.get('/session', ...guard, async (ctx) => {
    const s = ctx.state.session as RuntimeSession;
    const facts = await pageFacts(deps.pool, s);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      session_id: s.session_id,
      symbol: s.symbol,
      provider_id: s.provider_id,
      currency: s.currency,
      coin_minor: s.coin_minor === null ? null : s.coin_minor.toString(),
      device: s.device,
      lang: s.lang,
      return_url: s.return_url,
      expires_at: s.expires_at?.toISOString() ?? null,
      // What the game page shows and offers: title, currency exponent, the stakes (server-side).
      ...facts,
      // Player protection: set while the operator's wallet has stopped this session's bets.
      bets_blocked: await readBetsBlocked(deps.pool, s.session_id),
      // Jurisdiction rules in force, the session's elapsed time and net position, the reality check.
      ...(await sessionRulesFacts(deps.pool, s.session_id)),
      // Free rounds this session can play now (campaign, stake, rounds left, won so far), or null.
      free_rounds: await sessionFreeRounds(deps.pool, s),
    };
  });
  // The player declines the free rounds in this session: paid spins are allowed again (the rounds
  // stay granted and are shown; another session of the player offers them again).
  router.post('/free-rounds/decline', ...guard, async (ctx) => {
    const s = ctx.state.session as RuntimeSession;
    if (!isSlotTitle(s.provider_id)) throw conflict('This title has no free rounds');
    await deps.pool.query(
      `UPDATE sessions SET free_rounds_declined_at = coalesce(free_rounds_declined_at, now()) WHERE session_id = $1`,
      [s.session_id],
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { free_rounds: await sessionFreeRounds(deps.pool, s) };
  });
  router.post('/spin', ...guard, async (ctx) => {
    if (!deps.slots) throw runtimeNotConfigured('slot engine');
    ctx.set('Cache-Control', 'no-store');
    const session = ctx.state.session as RuntimeSession;
    const played = await spin(deps, deps.slots, session, ctx.state.body);
    // A refused debit: the player-facing text of the wallet's code, and whether bets stopped.
    ctx.body =
      played.status === 'rejected' && played.error
        ? { ...played, ...(await refusalFacts(deps.pool, session.session_id, played.error)) }
        : { ...played, error_message: null, bets_blocked: null };
  });
  // A round of this session the page follows after its spin answered `pending` (the wallet was
  // slow): the spin's answer, once the round is over; its outcome only once its debit stands.
  router.get('/rounds/:round_id', ...guard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await roundStatus(deps.pool, ctx.state.session as RuntimeSession, String(ctx.params.round_id));
  });
  // The player answers a due reality check: continue (spins allowed again) or leave.
  router.post('/reality-check', ...guard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await acknowledgeRealityCheck(deps.pool, ctx.state.session as RuntimeSession, ctx.state.body);
  });
  router.get('/balance', ...guard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await readWalletBalance(deps, ctx.state.session as RuntimeSession);
  });
  router.get('/events', ...guard, eventStream(deps));
  // The player's own rounds with this operator (this title or all), each with its replay link.
  router.get('/history', ...guard, playerHistory(deps));
  // The jackpot the session's paid spins feed, with each level's pool now (null: none). Pages
  // without an event stream (prov_b) read it every second.
  // The tournaments the session's spins count toward, with the top ten and the player's own place.
  router.get('/tournaments', ...guard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { tournaments: await sessionTournaments(deps, ctx.state.session as RuntimeSession) };
  });
  router.get('/jackpot', ...guard, async (ctx) => {
    const session = ctx.state.session as RuntimeSession;
    const jackpotId = await sessionJackpotId(deps, session);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { jackpot: jackpotId ? await deps.jackpots.current(jackpotId, session.currency) : null };
  });
  return router;
}
