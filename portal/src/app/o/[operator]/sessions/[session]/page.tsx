import type { Metadata } from 'next';
import Link from 'next/link';
import { Facts, Pager, Problem, StatusBadge } from '../../../../../components/ui';
import { load, operatorParam, qs, seg } from '../../../../../lib/api';
import { money, when } from '../../../../../lib/format';
import type { SessionDetail } from '../../../../../lib/types';

export const metadata: Metadata = { title: 'Session' };

export default async function SessionPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string; session: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const operator = await operatorParam(params);
  const { session } = await params;
  const sp = await searchParams;
  const r = await load<SessionDetail>(
    `/operators/${operator}/sessions/${seg(session)}${qs({ cursor: sp.cursor })}`,
  );
  if (!r.ok) return <Problem {...r} />;
  const s = r.data;
  const here = `/o/${operator}/sessions/${encodeURIComponent(s.session_id)}`;
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
      {s.round_page.items.length === 0 ? (
        <p className="notice warn">No rounds yet.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="session-rounds">
            <caption>Rounds, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Round</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Bet
                </th>
                <th scope="col" className="num">
                  Win
                </th>
                <th scope="col">Created</th>
                <th scope="col">Settled</th>
              </tr>
            </thead>
            <tbody>
              {s.round_page.items.map((round) => (
                <tr key={round.round_id}>
                  <td>
                    <Link
                      href={`/o/${operator}/rounds/${encodeURIComponent(round.round_id)}`}
                      className="mono"
                    >
                      {round.round_id}
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={round.status} />{' '}
                    {round.rejection_code ? <span className="mono">{round.rejection_code}</span> : null}{' '}
                    {round.stuck ? <StatusBadge status="stuck" /> : null}
                  </td>
                  <td className="num">{money(round.bet_minor, round.currency)}</td>
                  <td className="num">{money(round.win_minor, round.currency)}</td>
                  <td>{when(round.created_at)}</td>
                  <td>{when(round.settled_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        label="Round"
        next={s.round_page.next_cursor ? `${here}${qs({ cursor: s.round_page.next_cursor })}` : null}
        first={sp.cursor ? here : null}
      />
    </>
  );
}
