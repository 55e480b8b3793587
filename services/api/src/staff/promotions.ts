import type Router from '@koa/router';
import {
  CurrencyCode,
  JackpotWinQuery,
  PrizeDropId,
  PromoPayoutQuery,
  StaffJackpotsView,
  type StaffPrizeDrop,
  StaffPrizeDropDetail,
  StaffPrizeDropList,
  StaffTournamentActionResult,
  StaffTournamentDetail,
  StaffTournamentList,
  TournamentDefinitionRequest,
  TournamentId,
} from '@opi/contract';
import type { Pool } from '@opi/db';
import { leaderboard, leaderboardDisplayId } from '@opi/play/promotions/leaderboard';
import { payoutShownSql } from '@opi/play/settlement/wager-stands';
import { readBody } from '@opi/service-kit/http/body';
import { forbidden, type NotFoundThing, notFound } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { searchJackpotWins, searchPromoPayouts } from '../audit/jackpots-promos.js';
import type { ApiDeps } from '../deps.js';
import { jackpotsOfOperator } from '../jackpots/repository.js';
import { readPrizeDrops } from '../prize-drops/repository.js';
import { operatorTakesPart, readTournament, tournamentsOfOperator } from '../tournaments/repository.js';
import {
  cancelAndSignalTournament,
  defineAndStartTournament,
  presentTournament,
} from '../tournaments/service.js';
import { writeAudit } from './audit-log.js';
import { operatorOf, type StaffPrincipal, staffOf } from './auth.js';
import type { Respond } from './respond.js';

/*
 * The staff portal's Jackpots, Tournaments and Prize drops pages (issue 25, docs/portal.md). The
 * reads are the existing functions: the operator's jackpots (jackpotsOfOperator) and its hits (the
 * operator audit API's searchJackpotWins), its tournaments (tournamentsOfOperator, readTournament)
 * with the shared leaderboard (@opi/play/promotions/leaderboard: other operators' players by
 * leaderboardDisplayId), its prize drops (readPrizeDrops) and their awards (searchPromoPayouts).
 * Provider admins create and cancel a tournament through the admin API's own commands
 * (tournaments/service.ts: defineAndStartTournament, cancelAndSignalTournament), shown by its one
 * presenter (presentTournament, the staff view); both are written to the audit log.
 */

/** A path id checked against its contract rule: anything else cannot exist (404, never a 5xx). */
function idParam(ctx: Context, name: string, rule: z.ZodType<string>, what: NotFoundThing): string {
  const id = ctx.params[name] ?? '';
  if (!rule.safeParse(id).success) throw notFound(what);
  return id;
}

// ---------------------------------------------------------------------------------------------
// Jackpots

/** The jackpots the operator takes part in, with each pool now, and a page of its hits. */
export async function staffJackpots(
  pool: Pool,
  operatorId: string,
  q: JackpotWinQuery,
): Promise<StaffJackpotsView> {
  const [jackpots, hits] = await Promise.all([
    jackpotsOfOperator(pool, operatorId),
    searchJackpotWins(pool, operatorId, q),
  ]);
  return {
    jackpots: jackpots.map((j) => ({
      jackpot_id: j.jackpot_id,
      name: j.name,
      scope: j.scope,
      status: j.status,
      titles: j.titles,
      // Other operators of a network jackpot are not shown (the operator feed hides them too).
      levels: j.levels.map((l) => ({
        level: l.level,
        contribution_rate_ppm: l.contribution_rate_ppm,
        pools: l.pools.map((p) => ({
          ...p,
          // Every hit of the pool (all operators of a network jackpot), forfeits taken off.
          hits: j.totals.find((t) => t.level === l.level && t.currency === p.currency)?.hits ?? 0,
        })),
      })),
    })),
    hits,
  };
}

// ---------------------------------------------------------------------------------------------
// Tournaments

/** `GET .../tournaments/{id}` query: one currency's leaderboard or all, the top `limit` (100). */
export const StaffLeaderboardQuery = z.strictObject({
  currency: CurrencyCode.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});

/** `POST .../tournaments` body: the admin API's definition plus its id. */
const CreateId = z.object({ tournament_id: TournamentId });

/** `POST .../tournaments/{id}/cancel` body: an optional reason, kept in the audit log. */
export const StaffTournamentCancelRequest = z.strictObject({
  reason: z.string().trim().max(500).optional(),
});

/** The tournaments the operator is opted in to, the latest start first. */
export async function staffTournaments(pool: Pool, operatorId: string): Promise<StaffTournamentList> {
  const list = await tournamentsOfOperator(pool, operatorId);
  return {
    items: list
      .map((t) => presentTournament(t, 'staff'))
      .sort(
        (a, b) => b.starts_at.localeCompare(a.starts_at) || a.tournament_id.localeCompare(b.tournament_id),
      ),
  };
}

/**
 * One tournament with its leaderboards (live until its end, then the frozen standings): the
 * operator's own players by their id, the others by their display id; and once frozen each prize
 * with its payout (status, amount; the payout id and time for the operator's own players only).
 */
export async function staffTournament(
  deps: ApiDeps,
  operatorId: string,
  id: string,
  q: z.infer<typeof StaffLeaderboardQuery>,
): Promise<StaffTournamentDetail> {
  // Taking part first: a tournament the operator is not in costs what an unknown id does (issue 34).
  if (!(await operatorTakesPart(deps.pool, id, operatorId))) throw notFound('tournament');
  const t = await readTournament(deps.pool, id);
  if (!t) throw notFound('tournament');
  const frozen = t.status === 'ended' || t.status === 'paid';
  const rows = await leaderboard(deps.pool, id, frozen, q.limit, q.currency);
  const payouts = frozen
    ? (
        await deps.pool.query<{
          currency: string;
          rank: number;
          payout_id: string;
          status: 'pending' | 'paid' | null;
          amount_minor: string | null;
          paid_at: Date | null;
        }>(
          `SELECT trim(s.currency) AS currency, s.rank, s.payout_id, p.status, p.amount_minor::text, p.paid_at
             FROM tournament_standings s LEFT JOIN promo_payouts p ON p.payout_id = s.payout_id
            WHERE s.tournament_id = $1 AND s.payout_id IS NOT NULL ORDER BY s.currency, s.rank`,
          [id],
        )
      ).rows
    : [];
  const currencies = t.currencies.filter((c) => q.currency === undefined || c.currency === q.currency);
  return {
    ...presentTournament(t, 'staff'),
    frozen,
    leaderboards: currencies.map((c) => {
      const board = rows.filter((r) => r.currency === c.currency);
      const player = (r: (typeof board)[number] | undefined) =>
        r === undefined
          ? null
          : r.operator_id === operatorId
            ? { own: true, player_id: r.external_player_id, display_id: r.external_player_id }
            : {
                own: false,
                player_id: null,
                display_id: leaderboardDisplayId(deps.box, id, r.operator_id, r.external_player_id),
              };
      return {
        currency: c.currency,
        min_stake_minor: c.min_stake_minor,
        items: board.map((r) => ({
          rank: r.rank,
          ...player(r)!,
          score: r.score,
          prize_minor: r.prize_minor,
        })),
        prizes: c.prizes.map((p) => {
          const r = board.find((b) => b.rank === p.rank);
          const who = frozen ? player(r) : null;
          const payout = payouts.find((x) => x.currency === c.currency && x.rank === p.rank);
          return {
            rank: p.rank,
            amount_minor: p.amount_minor,
            winner: who,
            payout: payout
              ? {
                  status: payout.status ?? 'pending',
                  amount_minor: payout.amount_minor ?? p.amount_minor,
                  payout_id: who?.own ? payout.payout_id : null,
                  paid_at: who?.own ? (payout.paid_at?.toISOString() ?? null) : null,
                }
              : null,
          };
        }),
      };
    }),
  };
}

/** Provider admins only: a tournament is network-wide, so its definition and cancel are the provider's. */
export function providerAdmin(what: string): Middleware {
  return async (ctx, next) => {
    if (staffOf(ctx).providerRole !== 'admin') throw forbidden(`${what} needs the provider admin role`);
    await next();
  };
}

/**
 * A provider admin's tournament, from the portal: the admin API's definition and workflow start
 * (defineAndStartTournament), with the operator of the page opted in; written to the audit log.
 * The same definition again is `unchanged` (200), another one under the same id 409.
 */
export async function staffCreateTournament(
  deps: ApiDeps,
  input: { operatorId: string; body: unknown; staff: StaffPrincipal; clientIp: string },
): Promise<StaffTournamentActionResult> {
  const body = (input.body ?? {}) as Record<string, unknown>;
  const { tournament_id: id } = parseOr422(CreateId, body, 'body');
  const { tournament_id: _id, ...rest } = body;
  const definition = parseOr422(TournamentDefinitionRequest, rest, 'body');
  const { created } = await defineAndStartTournament(deps, id, definition, input.operatorId);
  const t = (await readTournament(deps.pool, id))!;
  const result = created ? 'created' : 'unchanged';
  const audit = await writeAudit(deps.pool, {
    staffId: input.staff.staffId,
    username: input.staff.username,
    operatorId: input.operatorId,
    action: 'tournament.create',
    target: id,
    result,
    clientIp: input.clientIp,
    detail: {
      message: created
        ? `Tournament ${id} is defined and its workflow started; ${input.operatorId} takes part.`
        : `Tournament ${id} was already defined so; nothing changed.`,
      name: t.name,
      scoring: t.scoring,
      starts_at: t.starts_at,
      ends_at: t.ends_at,
      titles: t.titles,
      currencies: t.currencies,
    },
  });
  return { result, tournament: presentTournament(t, 'staff'), audit };
}

/** A provider admin's cancel (before the end only; a repeat is `already_cancelled`), audit-logged. */
export async function staffCancelTournament(
  deps: ApiDeps,
  input: {
    operatorId: string;
    id: string;
    reason: string | undefined;
    staff: StaffPrincipal;
    clientIp: string;
  },
): Promise<StaffTournamentActionResult> {
  if (!(await operatorTakesPart(deps.pool, input.id, input.operatorId))) throw notFound('tournament');
  const before = await readTournament(deps.pool, input.id);
  if (!before) throw notFound('tournament');
  await cancelAndSignalTournament(deps, input.id);
  const t = (await readTournament(deps.pool, input.id))!;
  const result = before.status === 'cancelled' ? 'already_cancelled' : 'cancelled';
  const audit = await writeAudit(deps.pool, {
    staffId: input.staff.staffId,
    username: input.staff.username,
    operatorId: input.operatorId,
    action: 'tournament.cancel',
    target: input.id,
    result,
    clientIp: input.clientIp,
    detail: {
      reason: input.reason ?? '',
      status_before: before.status,
      cancelled_at: t.cancelled_at,
      message:
        result === 'cancelled'
          ? `Tournament ${input.id} is cancelled: nothing is frozen and no prize is paid.`
          : `Tournament ${input.id} was already cancelled at ${t.cancelled_at}.`,
    },
  });
  return { result, tournament: presentTournament(t, 'staff'), audit };
}

// ---------------------------------------------------------------------------------------------
// Prize drops

/** `GET .../prize-drops/{id}` query: a page of the operator's awards of the drop, newest first. */
export const StaffPrizeDropQuery = z.strictObject({
  limit: PromoPayoutQuery.shape.limit,
  cursor: PromoPayoutQuery.shape.cursor,
  status: PromoPayoutQuery.shape.status,
});

/** scheduled, active, ended or cancelled, by the stored status and the window now. */
function dropState(d: { status: string; starts_at: Date; ends_at: Date }, now: number) {
  if (d.status === 'cancelled') return 'cancelled';
  if (now < d.starts_at.getTime()) return 'scheduled';
  return now < d.ends_at.getTime() ? 'active' : 'ended';
}

async function dropsOf(pool: Pool, operatorId: string, ids?: string[]): Promise<StaffPrizeDrop[]> {
  const { rows } = await pool.query<{ drop_id: string }>(
    `SELECT drop_id FROM prize_drop_operators
      WHERE operator_id = $1 AND opted_in AND ($2::text[] IS NULL OR drop_id = ANY($2))`,
    [operatorId, ids ?? null],
  );
  if (rows.length === 0) return [];
  const drops = await readPrizeDrops(
    pool,
    rows.map((r) => r.drop_id),
  );
  // The operator's own awards per drop and currency (promo_payouts_promo: the drop's rows only).
  const { rows: awards } = await pool.query<{
    promo_id: string;
    currency: string;
    awarded: number;
    paid: number;
    amount_minor: string;
  }>(
    `SELECT promo_id, trim(currency) AS currency, count(*)::int AS awarded,
            count(*) FILTER (WHERE status = 'paid')::int AS paid, sum(amount_minor)::text AS amount_minor
       FROM promo_payouts WHERE promo_type = 'prize_drop' AND promo_id = ANY($1) AND operator_id = $2
        AND ${payoutShownSql('promo_payouts')}
      GROUP BY promo_id, currency`,
    [drops.map((d) => d.drop_id), operatorId],
  );
  const now = Date.now();
  return drops.map((d) => ({
    drop_id: d.drop_id,
    name: d.name,
    status: d.status,
    state: dropState(d, now),
    starts_at: d.starts_at.toISOString(),
    ends_at: d.ends_at.toISOString(),
    cancelled_at: d.cancelled_at?.toISOString() ?? null,
    titles: d.titles,
    pools: d.pools.map((p) => {
      const mine = awards.find((a) => a.promo_id === d.drop_id && a.currency === p.currency);
      return {
        ...p,
        // The prizes are shared by every operator of the drop; these are this operator's players'.
        awarded_here: mine?.awarded ?? 0,
        paid_here: mine?.paid ?? 0,
        awarded_here_minor: mine?.amount_minor ?? '0',
      };
    }),
  }));
}

/** The prize drops the operator is opted in to, the latest start first. */
export async function staffPrizeDrops(pool: Pool, operatorId: string): Promise<StaffPrizeDropList> {
  return { items: await dropsOf(pool, operatorId) };
}

/** One drop with its pools and a page of the operator's awards (the audit API's payout search). */
export async function staffPrizeDrop(
  pool: Pool,
  operatorId: string,
  id: string,
  q: z.infer<typeof StaffPrizeDropQuery>,
): Promise<StaffPrizeDropDetail> {
  const [drop] = await dropsOf(pool, operatorId, [id]);
  if (!drop) throw notFound('prize drop');
  const awards = await searchPromoPayouts(pool, operatorId, {
    ...q,
    promo_type: 'prize_drop',
    promo_id: id,
  } as PromoPayoutQuery);
  return { ...drop, awards };
}

// ---------------------------------------------------------------------------------------------
// Routes

/** Registers the routes on the staff API's operator router (`/api/staff/v1/operators/{id}`). */
export function staffPromotionRoutes(
  op: Router,
  deps: ApiDeps,
  mw: { auth: Middleware; viewer: Middleware; ipOf: (ctx: Context) => string; respond: Respond },
) {
  const { auth, viewer, respond } = mw;
  const pool = deps.pool;
  const opId = (ctx: Context) => operatorOf(ctx).operator_id;
  const query = (ctx: Context) => flatQuery(ctx.query);
  const creator = providerAdmin('Creating a tournament');
  const canceller = providerAdmin('Cancelling a tournament');

  op.get('/jackpots', auth, viewer, async (ctx) => {
    const q = parseOr422(JackpotWinQuery, query(ctx), 'query');
    respond(ctx, StaffJackpotsView, await staffJackpots(pool, opId(ctx), q));
  });

  op.get('/tournaments', auth, viewer, async (ctx) => {
    respond(ctx, StaffTournamentList, await staffTournaments(pool, opId(ctx)));
  });
  op.post('/tournaments', readBody(), auth, viewer, creator, async (ctx) => {
    const out = await staffCreateTournament(deps, {
      operatorId: opId(ctx),
      body: ctx.state.body,
      staff: staffOf(ctx),
      clientIp: mw.ipOf(ctx),
    });
    ctx.status = out.result === 'created' ? 201 : 200;
    respond(ctx, StaffTournamentActionResult, out);
  });
  op.get('/tournaments/:tournament_id', auth, viewer, async (ctx) => {
    const id = idParam(ctx, 'tournament_id', TournamentId, 'tournament');
    const q = parseOr422(StaffLeaderboardQuery, query(ctx), 'query');
    respond(ctx, StaffTournamentDetail, await staffTournament(deps, opId(ctx), id, q));
  });
  op.post('/tournaments/:tournament_id/cancel', readBody(), auth, viewer, canceller, async (ctx) => {
    const id = idParam(ctx, 'tournament_id', TournamentId, 'tournament');
    const input = parseOr422(StaffTournamentCancelRequest, ctx.state.body ?? {}, 'body');
    const out = await staffCancelTournament(deps, {
      operatorId: opId(ctx),
      id,
      reason: input.reason,
      staff: staffOf(ctx),
      clientIp: mw.ipOf(ctx),
    });
    respond(ctx, StaffTournamentActionResult, out);
  });

  op.get('/prize-drops', auth, viewer, async (ctx) => {
    respond(ctx, StaffPrizeDropList, await staffPrizeDrops(pool, opId(ctx)));
  });
  op.get('/prize-drops/:drop_id', auth, viewer, async (ctx) => {
    const id = idParam(ctx, 'drop_id', PrizeDropId, 'prize drop');
    const q = parseOr422(StaffPrizeDropQuery, query(ctx), 'query');
    respond(ctx, StaffPrizeDropDetail, await staffPrizeDrop(pool, opId(ctx), id, q));
  });
}
