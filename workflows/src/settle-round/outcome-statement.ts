import { blocksBets } from '@opi/contract';
import { journalCloseUnsentSql, journalEntry, journalInsertSql, journalOutcomeSql } from '@opi/wallet';
import type { StepOutcome, WalletStepInput } from './step-input.js';

/*
 * The statement recording a wallet step's outcome in the journal and, in the same statement (one
 * round trip, atomic), what follows from it: a table of the parts, each with when it applies.
 */

/** Adds a parameter and answers its placeholder (`$n`). */
type Param = (value: unknown) => string;

/**
 * Where a part stands in its statement: `tx`, the CTE name of its step's journal outcome; `error`,
 * the placeholder of that outcome's error code; `n`, the suffix of its own CTE's name (empty for
 * the statement's first step, `2` for the second: outcomesStatement).
 */
interface PartContext {
  tx: string;
  error: string;
  n: string;
}

interface OutcomePart {
  /** What the part does (the comment of its CTE). */
  what: string;
  /** The part's CTE, or null when it does not apply to this step and outcome. */
  sql(input: WalletStepInput, outcome: StepOutcome, p: Param, c: PartContext): string | null;
}

/** The round's status the outcome sets, if any. */
const roundStatusOf = (input: WalletStepInput, outcome: StepOutcome) =>
  (outcome.status === 'success' ? input.roundStatusOnSuccess : input.roundStatusOnRejection) ?? null;

/** After the journal row's own outcome (`tx`), in this order. */
const OUTCOME_PARTS: readonly OutcomePart[] = [
  {
    what: "the round's status (and its win, once completed)",
    sql(input, outcome, p, c) {
      const roundStatus = roundStatusOf(input, outcome);
      if (roundStatus === null) return null;
      const win =
        roundStatus === 'completed'
          ? `${p(input.operation === 'credit' ? input.amountMinor : '0')}::bigint`
          : 'win_minor';
      return `rd${c.n} AS (
         UPDATE rounds SET status = ${p(roundStatus)}, stuck = false, updated_at = now(), settled_at = now(),
                win_minor = ${win}
         WHERE round_id = ${p(input.intent.roundId)} RETURNING 1
       )`;
    },
  },
  {
    what: 'a successful rollback closes the reversed debit',
    sql(input, outcome, p, c) {
      if (input.operation !== 'rollback' || outcome.status !== 'success') return null;
      // The reversed debit's outcome is unknown and now irrelevant: it can no longer be pending.
      return `rb${c.n} AS (
         ${journalCloseUnsentSql(p(input.intent.transactions.debit), 'reversed_by_rollback')}
       )`;
    },
  },
  {
    what: "a successful rollback closes a credit-ahead round's unsent credit",
    sql(input, outcome, p, c) {
      if (!input.intent.creditAhead || input.operation !== 'rollback' || outcome.status !== 'success')
        return null;
      // The credit follows only a debit's success, which a rolled-back round never had.
      return `vr${c.n} AS (
         ${journalCloseUnsentSql(p(input.intent.transactions.credit), 'not_sent_round_rolled_back')}
       )`;
    },
  },
  {
    what: "a refused debit closes a credit-ahead round's unsent credit",
    sql(input, outcome, p, c) {
      if (!input.intent.creditAhead || input.operation !== 'debit' || outcome.status !== 'failed')
        return null;
      return `vd${c.n} AS (
         ${journalCloseUnsentSql(p(input.intent.transactions.credit), 'not_sent_debit_rejected')}
       )`;
    },
  },
  {
    what: "a debit refused with a code that blocks bets blocks the session's bets",
    sql(input, outcome, p, c) {
      if (
        input.operation !== 'debit' ||
        outcome.status !== 'failed' ||
        outcome.error === undefined ||
        !blocksBets(outcome.error)
      )
        return null;
      // Player protection: the session takes no bets until the operator relaunches it.
      return `sb${c.n} AS (
         UPDATE sessions SET bets_blocked_code = ${c.error}, bets_blocked_at = now(), bets_blocked_round_id = ${p(input.intent.roundId)}
         WHERE session_id = ${p(input.intent.sessionId)} AND EXISTS (SELECT 1 FROM ${c.tx}) RETURNING 1
       )`;
    },
  },
  {
    what: "a journal-ahead round's debit success journals its credit's pending row",
    sql(input, outcome, p, c) {
      const { intent } = input;
      if (
        !intent.journalAhead ||
        intent.creditAhead ||
        intent.winMinor === null ||
        input.operation !== 'debit' ||
        outcome.status !== 'success'
      )
        return null;
      // Journal first for the credit too: its row (exact bytes) is written before any send.
      const credit = journalEntry(intent, 'credit', intent.winMinor);
      return `cr${c.n} AS (
         ${journalInsertSql(
           {
             transactionId: p(credit.transactionId),
             operatorId: p(intent.operatorId),
             sessionId: p(intent.sessionId),
             roundId: p(intent.roundId),
             playerId: p(intent.playerId),
             gameSymbol: p(intent.gameSymbol),
             type: `'credit'`,
             amountMinor: p(intent.winMinor),
             currency: p(intent.currency),
             body: p(credit.body),
             requestHash: p(credit.requestHash),
           },
           { onConflictDoNothing: true },
         )}
       )`;
    },
  },
  {
    what: "a free round's credit adds to its grant's won total",
    sql(input, outcome, p, c) {
      const { intent } = input;
      if (!intent.freeRound || input.operation !== 'credit' || outcome.status !== 'success') return null;
      // Won totals equal credits: the grant's total grows in the statement recording the credit
      // (only when this statement took the row from pending).
      return `fr${c.n} AS (
         UPDATE free_round_grants SET won_minor = won_minor + ${p(input.amountMinor)}::bigint
         WHERE operator_id = ${p(intent.operatorId)} AND campaign_id = ${p(intent.freeRound.campaignId)}
           AND external_player_id = ${p(intent.playerId)} AND EXISTS (SELECT 1 FROM ${c.tx}) RETURNING 1
       )`;
    },
  },
  {
    what: 'a jackpot credit pays its hit',
    sql(input, outcome, p, c) {
      if (input.jackpotLevel === undefined || outcome.status !== 'success') return null;
      // The hit is paid in the statement recording its credit; the round (completed already) is
      // no longer stuck if this credit's failed attempts had marked it so (the next part).
      return `jh${c.n} AS (
         UPDATE jackpot_hits SET status = 'paid', settled_at = now()
         WHERE round_id = ${p(input.intent.roundId)} AND level = ${p(input.jackpotLevel)} AND status = 'pending'
           AND EXISTS (SELECT 1 FROM ${c.tx}) RETURNING 1
       )`;
    },
  },
  {
    what: "a jackpot credit's round is no longer stuck",
    sql(input, outcome, p, c) {
      if (input.jackpotLevel === undefined || outcome.status !== 'success') return null;
      return `ju${c.n} AS (
         UPDATE rounds SET stuck = false, updated_at = now()
         WHERE round_id = ${p(input.intent.roundId)} AND stuck AND EXISTS (SELECT 1 FROM ${c.tx}) RETURNING 1
       )`;
    },
  },
  {
    what: "a journal-ahead round's cancel voids its unsent credit",
    sql(input, outcome, p, c) {
      if (!input.intent.journalAhead || input.operation !== 'cancel' || outcome.status !== 'success')
        return null;
      return `vc${c.n} AS (
         ${journalCloseUnsentSql(p(input.intent.transactions.credit), 'not_sent_round_cancelled')}
       )`;
    },
  },
];

/** One step's outcome to record: the step, its journal row and the wallet's answer. */
export interface RecordedStep {
  input: WalletStepInput;
  txId: string;
  outcome: StepOutcome;
}

/**
 * The outcome and, in the same statement, what follows from it: the round's status; for a
 * successful rollback, the reversed debit; for a debit refused with a code that blocks bets
 * (self_excluded, session_time_limit, player_blocked or an unknown code), the session's bets
 * block; for a journal-ahead round, the credit's pending row with a debit's success (the credit is
 * then sent without a claim of its own), or that credit row voided with a cancel's success (a
 * cancelled round never sends its credit); for a credit-ahead round (its credit's row written with
 * the round), that row voided with a refused debit or a rollback's success. The block is set only
 * by the statement that records the refusal (a replay of a recorded outcome changes nothing), so a
 * relaunch that cleared it is not undone by a retried activity. Only the parts that apply are in
 * the statement: a data-modifying part that changes nothing still runs its table's triggers.
 */
export function outcomeStatement(
  input: WalletStepInput,
  txId: string,
  outcome: StepOutcome,
): { text: string; params: unknown[] } {
  return outcomesStatement([{ input, txId, outcome }]);
}

/**
 * Several steps' outcomes in one statement (one transaction): each step's journal outcome and its
 * parts, in order. The one-step spin of a credit-ahead round records its debit's and its credit's
 * success so (issue 36: one transaction instead of two). The steps must not write the same row
 * twice (a statement's parts see one snapshot): a debit's success and its round's credit do not.
 * With one step the text and parameters are outcomeStatement's as they always were.
 */
export function outcomesStatement(steps: readonly RecordedStep[]): { text: string; params: unknown[] } {
  const first = steps[0];
  if (!first) throw new Error('outcomesStatement: no step');
  const params: unknown[] = [
    first.txId,
    first.outcome.status,
    first.outcome.balance ?? null,
    first.outcome.error ?? null,
    first.outcome.httpStatus ?? null,
  ];
  const p: Param = (value) => {
    params.push(value);
    return `$${params.length}`;
  };
  const parts: string[] = [];
  steps.forEach(({ input, txId, outcome }, i) => {
    const n = i === 0 ? '' : String(i + 1);
    const o =
      i === 0
        ? { txId: '$1', status: '$2', balance: '$3', error: '$4', httpStatus: '$5' }
        : {
            txId: p(txId),
            status: p(outcome.status),
            balance: p(outcome.balance ?? null),
            error: p(outcome.error ?? null),
            httpStatus: p(outcome.httpStatus ?? null),
          };
    const c: PartContext = { tx: `tx${n}`, error: o.error, n };
    parts.push(`${c.tx} AS (
         ${journalOutcomeSql(o.txId, { status: o.status, balance: o.balance, error: o.error, httpStatus: o.httpStatus })}
       )`);
    for (const part of OUTCOME_PARTS) {
      const sql = part.sql(input, outcome, p, c);
      if (sql !== null) parts.push(sql);
    }
  });
  const names = parts.map((part) => part.slice(0, part.indexOf(' ')));
  return {
    text: `WITH ${parts.join(', ')} SELECT ${names.map((n) => `(SELECT count(*) FROM ${n}) AS ${n}`).join(', ')}`,
    params,
  };
}
