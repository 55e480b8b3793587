import Router from '@koa/router';
import {
  AMOUNT_UNIT,
  CONTRACT_VERSION,
  IDEMPOTENCY_KEY,
  JackpotContributionQuery,
  JackpotWinQuery,
  type OperatorContract,
  PromoPayoutQuery,
  ReconciliationQuery,
  RoundSearchQuery,
  TransactionSearchQuery,
  WALLET_CALLBACKS,
} from '@opi/contract';
import { sendJson } from '@opi/service-kit/http/json';
import { invalidField } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import {
  getPromoPayout,
  searchJackpotContributions,
  searchJackpotWins,
  searchPromoPayouts,
} from './jackpots-promos.js';
import { reconcile, reconciliationCsv } from './reconciliation.js';
import { issueReplayUrl, replayRoundId, replayUrlBody } from './replay-url.js';
import {
  getRound,
  getSession,
  getTransaction,
  replayLinksOf,
  searchRounds,
  searchTransactions,
} from './repository.js';

/** The query without `operator_id` (a master key's scope, already resolved by operatorScope). */
function auditQuery(ctx: Context): Record<string, string> {
  const { operator_id: _scope, ...rest } = flatQuery(ctx.query);
  return rest;
}

function pathId(ctx: Context, name: string): string {
  const id = ctx.params[name] ?? '';
  if (id.length < 1 || id.length > 200 || id.includes('\u0000')) {
    throw invalidField(['path', name], 'must be 1 to 200 characters');
  }
  return id;
}

/** The operator audit reads: every read is scoped by the key's operator (signed requests). */
export function auditRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const router = new Router({ prefix: '/api/operator/v1' });
  const operatorOf = (ctx: Context) => (ctx.state.operator as OperatorRow).operator_id;
  const links = replayLinksOf(deps);
  router.use(async (ctx, next) => {
    await next();
    ctx.set('Cache-Control', 'no-store');
  });

  router.get('/contract', ...guard, (ctx) => {
    const op = ctx.state.operator as OperatorRow;
    const data: OperatorContract = {
      operator_id: op.operator_id,
      version: CONTRACT_VERSION,
      amount_unit: AMOUNT_UNIT,
      allowed_currencies: op.allowed_currencies,
      bet_limits: { min: op.bet_min_minor.toString(), max: op.bet_max_minor.toString() },
      wallet_callbacks: [...WALLET_CALLBACKS],
      idempotency_key: IDEMPOTENCY_KEY,
    };
    sendJson(ctx, { success: true, data });
  });

  router.get('/sessions/:session_id', ...guard, async (ctx) => {
    sendJson(ctx, {
      success: true,
      data: await getSession(deps.pool, operatorOf(ctx), pathId(ctx, 'session_id')),
    });
  });

  router.get('/transactions', ...guard, async (ctx) => {
    const q = parseOr422(TransactionSearchQuery, auditQuery(ctx), 'query');
    sendJson(ctx, { success: true, data: await searchTransactions(deps.pool, links, operatorOf(ctx), q) });
  });
  router.get('/transactions/:transaction_id', ...guard, async (ctx) => {
    sendJson(ctx, {
      success: true,
      data: await getTransaction(deps.pool, links, operatorOf(ctx), pathId(ctx, 'transaction_id')),
    });
  });

  router.get('/rounds', ...guard, async (ctx) => {
    const q = parseOr422(RoundSearchQuery, auditQuery(ctx), 'query');
    sendJson(ctx, { success: true, data: await searchRounds(deps.pool, links, operatorOf(ctx), q) });
  });
  router.get('/rounds/:round_id', ...guard, async (ctx) => {
    sendJson(ctx, {
      success: true,
      data: await getRound(deps.pool, links, operatorOf(ctx), pathId(ctx, 'round_id')),
    });
  });
  // A time-limited replay link for a player (issue 26; replay-url.ts).
  router.post('/rounds/:round_id/replay-url', ...guard, async (ctx) => {
    const roundId = replayRoundId(ctx.params.round_id);
    replayUrlBody(ctx.state.body);
    const data = await issueReplayUrl(deps.pool, links, operatorOf(ctx), roundId);
    ctx.status = 201;
    sendJson(ctx, { success: true, data });
  });

  // Jackpot and promotional money (issue 25).
  router.get('/jackpot-contributions', ...guard, async (ctx) => {
    const q = parseOr422(JackpotContributionQuery, auditQuery(ctx), 'query');
    sendJson(ctx, { success: true, data: await searchJackpotContributions(deps.pool, operatorOf(ctx), q) });
  });
  router.get('/jackpot-wins', ...guard, async (ctx) => {
    const q = parseOr422(JackpotWinQuery, auditQuery(ctx), 'query');
    sendJson(ctx, { success: true, data: await searchJackpotWins(deps.pool, operatorOf(ctx), q) });
  });
  router.get('/promo-payouts', ...guard, async (ctx) => {
    const q = parseOr422(PromoPayoutQuery, auditQuery(ctx), 'query');
    sendJson(ctx, { success: true, data: await searchPromoPayouts(deps.pool, operatorOf(ctx), q) });
  });
  router.get('/promo-payouts/:payout_id', ...guard, async (ctx) => {
    sendJson(ctx, {
      success: true,
      data: await getPromoPayout(deps.pool, operatorOf(ctx), pathId(ctx, 'payout_id')),
    });
  });

  // Registered before the JSON route so `.csv` is not taken for a parameter.
  router.get('/reconciliation.csv', ...guard, async (ctx) => {
    const q = parseOr422(ReconciliationQuery, auditQuery(ctx), 'query');
    const r = await reconcile(deps.pool, operatorOf(ctx), q);
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="reconciliation-${r.operator_id}.csv"`);
    ctx.body = reconciliationCsv(r);
  });
  router.get('/reconciliation', ...guard, async (ctx) => {
    const q = parseOr422(ReconciliationQuery, auditQuery(ctx), 'query');
    sendJson(ctx, { success: true, data: await reconcile(deps.pool, operatorOf(ctx), q) });
  });
  return router;
}
