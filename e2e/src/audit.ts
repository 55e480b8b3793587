/**
 * The operator's view of a played round (signed audit reads): the round and its transactions,
 * amounts compared as integers with what the page played, and reconciliation.
 */
import type { OperatorClient } from './operator.js';
import type { PlayedRound } from './play/common.js';

const SETTLED = new Set(['completed', 'rejected', 'cancelled', 'rolled_back']);
const isInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);

export interface AuditedRound {
  detail: string;
  /** Successful transaction types, e.g. ['debit', 'credit']. */
  types: string[];
  transactionIds: string[];
}

type Round = Awaited<ReturnType<OperatorClient['getRound']>>['data'];

/** Waits until the audit API shows the round settled, then checks it against the page's round. */
export async function auditRound(
  api: OperatorClient,
  played: PlayedRound,
  expect: { sessionId: string; currency: string },
  timeoutMs: number,
): Promise<AuditedRound> {
  const deadline = Date.now() + timeoutMs;
  let round: Round | undefined;
  for (;;) {
    round = (await api.getRound(played.roundId)).data;
    const pending = round.transactions.some((t) => t.status === 'pending');
    if (SETTLED.has(round.status) && !pending) break;
    if (Date.now() > deadline) {
      const txs = round.transactions.map((t) => `${t.transaction_type} ${t.status}`).join(', ');
      throw new Error(
        `round ${played.roundId} is still ${round.status}${round.stuck ? ' (stuck)' : ''} after ${Math.round(timeoutMs / 1000)} s; transactions: ${txs || 'none'}`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const problems: string[] = [];
  const want = (cond: boolean, text: string) => {
    if (!cond) problems.push(text);
  };
  want(round.status === 'completed', `status ${round.status}, not completed`);
  want(
    round.session_id === expect.sessionId,
    `session ${round.session_id}, the launch's was ${expect.sessionId}`,
  );
  want(round.currency === expect.currency, `currency ${round.currency}, the session's is ${expect.currency}`);
  want(isInt(round.bet_minor), `bet_minor ${JSON.stringify(round.bet_minor)} is not an integer`);
  want(isInt(round.win_minor), `win_minor ${JSON.stringify(round.win_minor)} is not an integer`);
  want(
    BigInt(round.bet_minor) === played.betMinor,
    `bet_minor ${round.bet_minor}, the page played ${played.betMinor}`,
  );
  want(
    BigInt(round.win_minor) === played.winMinor,
    `win_minor ${round.win_minor}, the page showed ${played.winMinor}`,
  );
  for (const t of round.transactions) {
    want(t.round_id === played.roundId, `transaction ${t.transaction_id} belongs to round ${t.round_id}`);
    want(
      isInt(t.amount_minor),
      `${t.transaction_type} amount_minor ${JSON.stringify(t.amount_minor)} is not an integer`,
    );
    want(t.currency === expect.currency, `${t.transaction_type} in ${t.currency}`);
    want(t.status === 'success', `${t.transaction_type} ${t.transaction_id} is ${t.status}`);
  }
  const one = (type: string, amount: bigint) => {
    const list = round.transactions.filter((t) => t.transaction_type === type && t.status === 'success');
    want(list.length === 1, `${list.length} successful ${type} transactions, expected 1`);
    if (list[0])
      want(BigInt(list[0].amount_minor) === amount, `${type} of ${list[0].amount_minor}, expected ${amount}`);
  };
  one('debit', played.betMinor);
  one('credit', played.winMinor);
  if (problems.length) throw new Error(`round ${played.roundId}: ${problems.join('; ')}`);
  const types = [
    ...new Set(round.transactions.filter((t) => t.status === 'success').map((t) => t.transaction_type)),
  ];
  return {
    detail: `round ${played.roundId} completed: bet ${round.bet_minor}, win ${round.win_minor} ${round.currency}; ${round.transactions
      .map((t) => `${t.transaction_type} ${t.amount_minor} ${t.status}`)
      .join(', ')}`,
    types,
    transactionIds: round.transactions.map((t) => t.transaction_id),
  };
}
