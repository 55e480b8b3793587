import Router from '@koa/router';
import {
  EnabledRequest,
  LeaderboardQuery,
  OperatorId,
  TOURNAMENT_MAX_DAYS,
  TournamentDefinitionRequest,
  TournamentId,
} from '@opi/contract';
import { leaderboard, leaderboardDisplayId } from '@opi/play/promotions/leaderboard';
import { HttpError } from '@opi/service-kit/http/errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import { signalTournamentCancel, startTournamentWorkflow } from '@opi/workflows';
import type { Context, Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { resolveSlotTitles } from '../promotions/slot-titles.js';
import {
  cancelTournament,
  defineTournament,
  operatorTakesPart,
  readTournament,
  readTournaments,
  setTournamentOperator,
  type TournamentRecord,
  tournamentExists,
  tournamentsOfOperator,
} from './repository.js';

/** The operators' view: no other operators, no payouts. */
function present(t: TournamentRecord) {
  return {
    tournament_id: t.tournament_id,
    name: t.name,
    scoring: t.scoring,
    starts_at: t.starts_at,
    ends_at: t.ends_at,
    status: t.status,
    titles: t.titles,
    currencies: t.currencies,
  };
}

function presentAdmin(t: TournamentRecord) {
  return {
    ...present(t),
    operators: t.operators,
    created_at: t.created_at,
    cancelled_at: t.cancelled_at,
    frozen_at: t.frozen_at,
    paid_at: t.paid_at,
    payouts: t.payouts,
  };
}

function tournamentIdOf(ctx: Context): string {
  const id = ctx.params.tournament_id ?? '';
  if (!TournamentId.safeParse(id).success) throw new HttpError(404, 'Tournament not found');
  return id;
}

const unprocessable = (field: string, msg: string) =>
  new HttpError(422, [{ loc: ['body', field], msg, type: 'value_error' }]);

function temporalOf(deps: ApiDeps) {
  if (!deps.temporal) throw new HttpError(503, 'Provider runtime not configured (no settlement service)');
  return deps.temporal;
}

/**
 * Defines a tournament and starts its workflow: the admin's PUT and the staff portal's create
 * (staff/promotions.ts) both come here. The window's bounds apply to a new definition; a repeat of
 * a stored one (`created: false`) is compared as it is, even after its end. `operatorId`, when
 * given, is opted in before the workflow starts.
 */
export async function defineAndStartTournament(
  deps: ApiDeps,
  id: string,
  input: TournamentDefinitionRequest,
  operatorId?: string,
): Promise<{ created: boolean }> {
  if (!(await tournamentExists(deps.pool, id))) {
    const now = Date.now();
    const ends = Date.parse(input.ends_at);
    if (ends <= now) throw unprocessable('ends_at', 'ends_at must be in the future');
    if (ends - now > TOURNAMENT_MAX_DAYS * 86_400_000)
      throw unprocessable('ends_at', `ends_at must be within ${TOURNAMENT_MAX_DAYS} days`);
    if (ends - Date.parse(input.starts_at) > TOURNAMENT_MAX_DAYS * 86_400_000)
      throw unprocessable('ends_at', `a tournament lasts at most ${TOURNAMENT_MAX_DAYS} days`);
  }
  const titles = await resolveSlotTitles(deps.pool, input.titles, 'tournaments');
  const temporal = temporalOf(deps);
  const { created } = await defineTournament(deps.pool, id, {
    name: input.name,
    scoring: input.scoring,
    starts_at: input.starts_at,
    ends_at: input.ends_at,
    titles,
    currencies: Object.fromEntries(
      Object.entries(input.currencies).map(([c, v]) => [
        c,
        { min_stake_minor: String(v.min_stake_minor), prizes: v.prizes.map(String) },
      ]),
    ),
  });
  if (operatorId !== undefined) await setTournamentOperator(deps.pool, id, operatorId, true);
  // Started with the definition, and again on a repeat (a no-op once it runs or ran): a start
  // that failed is made by the next PUT of the same definition.
  try {
    await startTournamentWorkflow(temporal.client, temporal.taskQueue, id);
  } catch (err) {
    deps.logger.error('tournament workflow not started', { tournament_id: id, error: String(err) });
    throw new HttpError(
      502,
      'The tournament is stored but its workflow did not start: send the same definition again',
    );
  }
  return { created };
}

/** The provider admin API's tournament routes (issue 25). */
export function adminTournamentRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router({ prefix: '/api/admin/v1/tournaments' });
  r.get('/', ...guard, async (ctx) => {
    ctx.body = { success: true, data: { items: (await readTournaments(deps.pool)).map(presentAdmin) } };
  });
  r.put('/:tournament_id', ...guard, async (ctx) => {
    const id = tournamentIdOf(ctx);
    const input = parseOr422(TournamentDefinitionRequest, ctx.state.body ?? {}, 'body');
    const { created } = await defineAndStartTournament(deps, id, input);
    ctx.status = created ? 201 : 200;
    ctx.body = { success: true, data: presentAdmin((await readTournament(deps.pool, id))!) };
  });
  r.get('/:tournament_id', ...guard, async (ctx) => {
    const t = await readTournament(deps.pool, tournamentIdOf(ctx));
    if (!t) throw new HttpError(404, 'Tournament not found');
    ctx.body = { success: true, data: presentAdmin(t) };
  });
  r.post('/:tournament_id/cancel', ...guard, async (ctx) => {
    const id = tournamentIdOf(ctx);
    await cancelTournament(deps.pool, id);
    // The workflow reads the database when woken; a missed signal only delays its end to the timer's.
    if (deps.temporal) await signalTournamentCancel(deps.temporal.client, id);
    ctx.body = { success: true, data: presentAdmin((await readTournament(deps.pool, id))!) };
  });
  r.put('/:tournament_id/operators/:operator_id', ...guard, async (ctx) => {
    const id = tournamentIdOf(ctx);
    const operatorId = ctx.params.operator_id ?? '';
    if (!OperatorId.safeParse(operatorId).success) throw new HttpError(404, 'Operator not found');
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
      data: { items: (await tournamentsOfOperator(deps.pool, operator.operator_id)).map(present) },
    };
  });
  r.get('/tournaments/:tournament_id/leaderboard', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    const id = tournamentIdOf(ctx);
    const q = parseOr422(LeaderboardQuery, flatQuery(ctx.query), 'query');
    // Taking part first: a tournament the operator is not in costs what an unknown id does (issue 34).
    if (!(await operatorTakesPart(deps.pool, id, operator.operator_id)))
      throw new HttpError(404, 'Tournament not found');
    const t = await readTournament(deps.pool, id);
    if (!t) throw new HttpError(404, 'Tournament not found');
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
