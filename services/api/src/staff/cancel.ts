import type { StaffCancelResult } from '@opi/contract';
import type { Pool } from '@opi/db';
import { runtimeNotConfigured } from '@opi/service-kit/http/named-errors';
import { staffCancelSignal } from '@opi/workflows';
import { getRound, replayLinksOf } from '../audit/repository.js';
import type { ApiDeps } from '../deps.js';
import { writeAudit } from './audit-log.js';
import type { StaffPrincipal } from './auth.js';

/** How long the staff action watches the round for the cancel to settle before answering. */
const SETTLE_WAIT_MS = 3_000;
/** The longest the signal may take to be recorded. */
const SIGNAL_DEADLINE_MS = 10_000;

const FINAL = new Set(['completed', 'rejected', 'cancelled', 'rolled_back']);

/** What became of a staff cancel (the contract's StaffCancelResult). */
export type CancelResult = StaffCancelResult;

/**
 * A staff cancel of an unfinished round, through its settlement workflow: the `staffCancel`
 * signal, which the server records at once even while a wallet step is retrying, and which the
 * workflow applies once the debit's outcome is known (a cancel never refunds a debit that may not
 * have happened). A round whose credit, rollback or cancel has begun is refused: a credit is never
 * abandoned. Every attempt, refused or not, is written to the staff audit log with who, when, what
 * and the result.
 */
export async function cancelRound(
  deps: ApiDeps,
  pool: Pool,
  input: { operatorId: string; roundId: string; reason: string; staff: StaffPrincipal; clientIp: string },
): Promise<CancelResult> {
  const round = await getRound(pool, replayLinksOf(deps), input.operatorId, input.roundId);
  const audit = (result: CancelResult['result'], message: string, extra: Record<string, unknown> = {}) =>
    writeAudit(pool, {
      staffId: input.staff.staffId,
      username: input.staff.username,
      operatorId: input.operatorId,
      action: 'round.cancel',
      target: input.roundId,
      result,
      clientIp: input.clientIp,
      detail: {
        reason: input.reason,
        message,
        round_status_before: round.status,
        stuck_before: round.stuck,
        ...extra,
      },
    });
  const finish = async (
    result: CancelResult['result'],
    message: string,
    extra?: Record<string, unknown>,
  ) => ({
    result,
    message,
    audit: await audit(result, message, extra),
  });

  if (FINAL.has(round.status)) return finish('refused', `The round is already ${round.status}.`);
  const begun = round.transactions.find(
    (t) => t.transaction_type !== 'debit' && t.transaction_type !== 'balance',
  );
  if (begun) {
    return finish(
      'refused',
      begun.transaction_type === 'credit'
        ? 'The win is being credited; a credit is never abandoned.'
        : `A ${begun.transaction_type} is already under way for this round.`,
    );
  }
  if (!deps.temporal) throw runtimeNotConfigured('settlement service');
  const { client } = deps.temporal;
  try {
    await client.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () =>
      client.workflow
        .getHandle(input.roundId)
        .signal(staffCancelSignal, { reason: `staff ${input.staff.username}: ${input.reason}` }),
    );
  } catch (err) {
    const e = err as { name?: string; message?: string };
    const why =
      e.name === 'WorkflowNotFoundError' || /not found|already completed/i.test(e.message ?? '')
        ? 'No settlement workflow is running for this round.'
        : `The settlement service did not take the cancel: ${e.message ?? String(err)}.`;
    return finish('refused', why, { error: e.name ?? 'Error' });
  }
  const deadline = Date.now() + SETTLE_WAIT_MS;
  let status: string = round.status;
  while (Date.now() < deadline) {
    const { rows } = await pool.query<{ status: string }>(`SELECT status FROM rounds WHERE round_id = $1`, [
      input.roundId,
    ]);
    status = rows[0]?.status ?? status;
    if (FINAL.has(status)) break;
    await new Promise((r) => setTimeout(r, 150));
  }
  if (status === 'cancelled') return finish('cancelled', 'The wager was cancelled at the wallet.');
  if (FINAL.has(status)) return finish('ended', `The round ended ${status} before the cancel applied.`);
  return finish(
    'accepted',
    'The settlement workflow has the cancel; it applies it once the debit’s outcome is known.',
  );
}
