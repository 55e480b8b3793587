import { TOURNAMENT_MAX_DAYS, type TournamentDefinitionRequest } from '@opi/contract';
import { badGateway, invalidField, runtimeNotConfigured } from '@opi/service-kit/http/named-errors';
import { pick } from '@opi/service-kit/http/present';
import { signalTournamentCancel, startTournamentWorkflow } from '@opi/workflows';
import type { ApiDeps } from '../deps.js';
import { resolveSlotTitles } from '../promotions/slot-titles.js';
import {
  cancelTournament,
  defineTournament,
  setTournamentOperator,
  type TournamentRecord,
  tournamentExists,
} from './repository.js';

/*
 * A tournament's commands and its one presenter (issue 36). The admin API's routes (routes.ts)
 * and the staff portal's (staff/promotions.ts) both define, start and cancel a tournament here,
 * and show it through presentTournament, each to its audience.
 */

// ---------------------------------------------------------------------------------------------
// The presenter

/**
 * Who is shown a tournament: `operator`, an operator's API (no other operators, no payouts, no
 * lifecycle times); `staff`, the portal (the definition and its lifecycle times, never another
 * operator's payouts); `admin`, the provider admin API (everything).
 */
export type TournamentAudience = 'operator' | 'staff' | 'admin';

const definitionOf = (t: TournamentRecord) =>
  pick(t, ['tournament_id', 'name', 'scoring', 'starts_at', 'ends_at', 'status']);

const lifecycleOf = (t: TournamentRecord) => pick(t, ['created_at', 'cancelled_at', 'frozen_at', 'paid_at']);

type Definition = ReturnType<typeof definitionOf>;
type Lifecycle = ReturnType<typeof lifecycleOf>;
type Terms = Pick<TournamentRecord, 'titles' | 'currencies'>;
export type OperatorTournamentView = Definition & Terms;
export type StaffTournamentView = Definition & Lifecycle & Terms;
export type AdminTournamentView = Definition &
  Terms &
  Pick<TournamentRecord, 'operators'> &
  Lifecycle &
  Pick<TournamentRecord, 'payouts'>;

/** A tournament as its audience sees it (the fields in the order each response has always had). */
export function presentTournament(t: TournamentRecord, audience: 'operator'): OperatorTournamentView;
export function presentTournament(t: TournamentRecord, audience: 'staff'): StaffTournamentView;
export function presentTournament(t: TournamentRecord, audience: 'admin'): AdminTournamentView;
export function presentTournament(
  t: TournamentRecord,
  audience: TournamentAudience,
): OperatorTournamentView | StaffTournamentView | AdminTournamentView {
  const terms = { titles: t.titles, currencies: t.currencies };
  switch (audience) {
    case 'operator':
      return { ...definitionOf(t), ...terms };
    case 'staff':
      return { ...definitionOf(t), ...lifecycleOf(t), ...terms };
    case 'admin':
      return { ...definitionOf(t), ...terms, operators: t.operators, ...lifecycleOf(t), payouts: t.payouts };
  }
}

// ---------------------------------------------------------------------------------------------
// The commands

const unprocessable = (field: string, msg: string) => invalidField(['body', field], msg);

function temporalOf(deps: ApiDeps) {
  if (!deps.temporal) throw runtimeNotConfigured('settlement service');
  return deps.temporal;
}

/** A new definition's window: it ends in the future, within TOURNAMENT_MAX_DAYS, and lasts at most that. */
function checkNewWindow(input: TournamentDefinitionRequest): void {
  const now = Date.now();
  const ends = Date.parse(input.ends_at);
  if (ends <= now) throw unprocessable('ends_at', 'ends_at must be in the future');
  if (ends - now > TOURNAMENT_MAX_DAYS * 86_400_000)
    throw unprocessable('ends_at', `ends_at must be within ${TOURNAMENT_MAX_DAYS} days`);
  if (ends - Date.parse(input.starts_at) > TOURNAMENT_MAX_DAYS * 86_400_000)
    throw unprocessable('ends_at', `a tournament lasts at most ${TOURNAMENT_MAX_DAYS} days`);
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
  if (!(await tournamentExists(deps.pool, id))) checkNewWindow(input);
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
    throw badGateway(
      'The tournament is stored but its workflow did not start: send the same definition again',
    );
  }
  return { created };
}

/**
 * Cancels a tournament (cancelTournament: before its end only, a repeat harmless) and wakes its
 * workflow. The workflow reads the database when woken; a missed signal only delays its end to
 * the timer's.
 */
export async function cancelAndSignalTournament(deps: ApiDeps, id: string): Promise<void> {
  await cancelTournament(deps.pool, id);
  if (deps.temporal) await signalTournamentCancel(deps.temporal.client, id);
}
