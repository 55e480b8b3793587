import Link from 'next/link';
import { money, when } from '../lib/format';
import type { OperatorRound } from '../lib/types';
import type { Column } from './table';
import { StatusBadge } from './ui';

/* What several pages show of a round or session: links to their pages, and a round's status in full. */

/** The round's id, linking to its page under the operator. */
export function RoundLink({ operator, roundId }: { operator: string; roundId: string }) {
  return (
    <Link href={`/o/${operator}/rounds/${encodeURIComponent(roundId)}`} className="mono">
      {roundId}
    </Link>
  );
}

/** The round's status, its refusal code when rejected, and whether it is stuck. */
export function RoundStatus({
  round,
}: {
  round: { status: string; rejection_code?: string | null; stuck?: boolean };
}) {
  return (
    <>
      <StatusBadge status={round.status} />{' '}
      {round.rejection_code ? <span className="mono">{round.rejection_code}</span> : null}{' '}
      {round.stuck ? <StatusBadge status="stuck" /> : null}
    </>
  );
}

/** The session's id, linking to its page under the operator. */
export function SessionLink({ operator, sessionId }: { operator: string; sessionId: string }) {
  return (
    <Link href={`/o/${operator}/sessions/${encodeURIComponent(sessionId)}`} className="mono">
      {sessionId}
    </Link>
  );
}

/** The columns a table of rounds picks from (the rounds search, a session's rounds). */
export function roundColumns(operator: string) {
  return {
    round: { head: 'Round', cell: (r) => <RoundLink operator={operator} roundId={r.round_id} /> },
    player: { head: 'Player', tdClass: 'mono', cell: (r) => r.player_id },
    game: { head: 'Game', tdClass: 'mono', cell: (r) => r.game_symbol },
    status: { head: 'Status', cell: (r) => <RoundStatus round={r} /> },
    bet: { head: 'Bet', num: true, cell: (r) => money(r.bet_minor, r.currency) },
    win: { head: 'Win', num: true, cell: (r) => money(r.win_minor, r.currency) },
    created: { head: 'Created', cell: (r) => when(r.created_at) },
    settled: { head: 'Settled', cell: (r) => when(r.settled_at) },
  } satisfies Record<string, Column<OperatorRound>>;
}
