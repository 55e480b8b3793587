import type { Metadata } from 'next';
import Link from 'next/link';
import { KeysetPager } from '../../../../../components/pager';
import { roundColumns } from '../../../../../components/rounds';
import { TableOr } from '../../../../../components/table';
import { Facts, Problem, StatusBadge } from '../../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs, seg } from '../../../../../lib/api';
import { when } from '../../../../../lib/format';
import type { SessionDetail } from '../../../../../lib/types';

export const metadata: Metadata = { title: 'Session' };

export default async function SessionPage({ params, searchParams }: OperatorPageProps<{ session: string }>) {
  const operator = await operatorParam(params);
  const { session } = await params;
  const sp = await searchParams;
  const r = await load<SessionDetail>(
    `/operators/${operator}/sessions/${seg(session)}${qs({ cursor: sp.cursor })}`,
  );
  if (!r.ok) return <Problem {...r} />;
  const s = r.data;
  const here = `/o/${operator}/sessions/${encodeURIComponent(s.session_id)}`;
  const col = roundColumns(operator);
  return (
    <>
      <p>
        <Link href={`/o/${operator}/sessions`}>← Sessions</Link>
      </p>
      <h1>
        Session <span className="mono">{s.session_id}</span>
      </h1>
      <Facts
        items={[
          [
            'Player',
            <span key="p" className="mono">
              {s.player_id}
            </span>,
          ],
          [
            'Game',
            <span key="g" className="mono">
              {s.game_symbol}
            </span>,
          ],
          ['Provider', s.provider_id],
          ['Currency', s.currency],
          ['Status', <StatusBadge key="s" status={s.status} />],
          ['Device', s.device ?? '—'],
          ['Language', s.lang ?? '—'],
          ['Started', when(s.created_at)],
          ['Last activity', when(s.last_activity_at)],
          ['Expires', when(s.expires_at)],
          ['Rounds', `${s.rounds.total} (${s.rounds.open} open, ${s.rounds.stuck} stuck)`],
          [
            'Bets',
            s.bets_blocked ? (
              <span key="b" data-testid="bets-blocked">
                blocked since {when(s.bets_blocked.since)}: the wallet refused a debit with{' '}
                <span className="mono">{s.bets_blocked.code}</span> (until the next launch)
              </span>
            ) : (
              'taken'
            ),
          ],
        ]}
      />
      <h2>Rounds of this session</h2>
      <TableOr
        empty="No rounds yet."
        testId="session-rounds"
        caption="Rounds, newest first"
        rows={s.round_page.items}
        rowKey={(round) => round.round_id}
        columns={[col.round, col.status, col.bet, col.win, col.created, col.settled]}
      />
      <KeysetPager label="Round" base={here} next={s.round_page.next_cursor} current={sp.cursor} />
    </>
  );
}
