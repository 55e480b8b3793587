import Router from '@koa/router';
import {
  EnabledRequest,
  LeaderboardQuery,
  OperatorId,
  TournamentDefinitionRequest,
  TournamentId,
} from '@opi/contract';
import { leaderboard, leaderboardDisplayId } from '@opi/play/promotions/leaderboard';
import { notFound } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import {
  operatorTakesPart,
  readTournament,
  readTournaments,
  setTournamentOperator,
  tournamentsOfOperator,
} from './repository.js';
import { cancelAndSignalTournament, defineAndStartTournament, presentTournament } from './service.js';

function tournamentIdOf(ctx: Context): string {
  const id = ctx.params.tournament_id ?? '';
  if (!TournamentId.safeParse(id).success) throw notFound('tournament');
  return id;
}

/** The provider admin API's tournament routes (issue 25). */
export function adminTournamentRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router({ prefix: '/api/admin/v1/tournaments' });
  r.get('/', ...guard, async (ctx) => {
    ctx.body = {
      success: true,
      data: { items: (await readTournaments(deps.pool)).map((t) => presentTournament(t, 'admin')) },
    };
  });
  r.put('/:tournament_id', ...guard, async (ctx) => {
    const id = tournamentIdOf(ctx);
    const input = parseOr422(TournamentDefinitionRequest, ctx.state.body ?? {}, 'body');
    const { created } = await defineAndStartTournament(deps, id, input);
    ctx.status = created ? 201 : 200;
    ctx.body = { success: true, data: presentTournament((await readTournament(deps.pool, id))!, 'admin') };
  });
  r.get('/:tournament_id', ...guard, async (ctx) => {
    const t = await readTournament(deps.pool, tournamentIdOf(ctx));
    if (!t) throw notFound('tournament');
    ctx.body = { success: true, data: presentTournament(t, 'admin') };
  });
  r.post('/:tournament_id/cancel', ...guard, async (ctx) => {
    const id = tournamentIdOf(ctx);
    await cancelAndSignalTournament(deps, id);
    ctx.body = { success: true, data: presentTournament((await readTournament(deps.pool, id))!, 'admin') };
  });
  r.put('/:tournament_id/operators/:operator_id', ...guard, async (ctx) => {
    const id = tournamentIdOf(ctx);
    const operatorId = ctx.params.operator_id ?? '';
    if (!OperatorId.safeParse(operatorId).success) throw notFound('operator');
    const { enabled } = parseOr422(EnabledRequest, ctx.state.body ?? {}, 'body');
    await setTournamentOperator(deps.pool, id, operatorId, enabled);
    ctx.body = { success: true, data: { tournament_id: id, operator_id: operatorId, opted_in: enabled } };
  });
  return r;
}

/** The operator's tournaments and leaderboards. */
export function tournamentRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router();
  r.get('/tournaments', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      success: true,
      data: {
        items: (await tournamentsOfOperator(deps.pool, operator.operator_id)).map((t) =>
          presentTournament(t, 'operator'),
        ),
      },
    };
  });
  r.get('/tournaments/:tournament_id/leaderboard', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    const id = tournamentIdOf(ctx);
    const q = parseOr422(LeaderboardQuery, flatQuery(ctx.query), 'query');
    // Taking part first: a tournament the operator is not in costs what an unknown id does (issue 34).
    if (!(await operatorTakesPart(deps.pool, id, operator.operator_id))) throw notFound('tournament');
    const t = await readTournament(deps.pool, id);
    if (!t) throw notFound('tournament');
    const frozen = t.status === 'ended' || t.status === 'paid';
    const rows = await leaderboard(deps.pool, id, frozen, q.limit, q.currency);
    const currencies = t.currencies
      .map((c) => c.currency)
      .filter((c) => q.currency === undefined || c === q.currency);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      success: true,
      data: {
        tournament_id: id,
        status: t.status,
        frozen,
        leaderboards: currencies.map((currency) => ({
          currency,
          items: rows
            .filter((row) => row.currency === currency)
            .map((row) => {
              const own = row.operator_id === operator.operator_id;
              return {
                rank: row.rank,
                player_id: own ? row.external_player_id : null,
                display_id: own
                  ? row.external_player_id
                  : leaderboardDisplayId(deps.box, id, row.operator_id, row.external_player_id),
                own,
                score: row.score,
                prize_minor: row.prize_minor,
              };
            }),
        })),
      },
    };
  });
  return r;
}
