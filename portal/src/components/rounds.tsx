import Link from 'next/link';
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
