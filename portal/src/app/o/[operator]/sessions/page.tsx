import type { Metadata } from 'next';
import Link from 'next/link';
import { Field, Pager, Problem, StatusBadge } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
import { when } from '../../../../lib/format';
import type { OperatorInfo, Page, SessionItem } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Sessions' };

export default async function SessionsPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const filters = {
    player_id: sp.player_id?.trim() || undefined,
    game_symbol: sp.game_symbol?.trim() || undefined,
    currency: sp.currency || undefined,
    status: sp.status || undefined,
  };
  const [info, page] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<Page<SessionItem>>(`/operators/${operator}/sessions${qs({ ...filters, cursor: sp.cursor })}`),
  ]);
  if (!info.ok) return <Problem {...info} />;
  const base = `/o/${operator}/sessions`;
  return (
    <>
      <h1>Sessions</h1>
      <form className="filters" method="get" aria-label="Search sessions">
        <Field id="player_id" label="Player (external id)">
          <input id="player_id" name="player_id" defaultValue={filters.player_id ?? ''} autoComplete="off" />
        </Field>
        <Field id="game_symbol" label="Game symbol">
          <input
            id="game_symbol"
            name="game_symbol"
            defaultValue={filters.game_symbol ?? ''}
            autoComplete="off"
          />
        </Field>
        <Field id="currency" label="Currency">
          <select id="currency" name="currency" defaultValue={filters.currency ?? ''}>
            <option value="">Any</option>
            {info.data.allowed_currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <Field id="status" label="Status">
          <select id="status" name="status" defaultValue={filters.status ?? ''}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="closed">Closed</option>
            <option value="revoked">Revoked</option>
          </select>
        </Field>
        <button type="submit">Search</button>
      </form>
      {!page.ok ? (
        <Problem {...page} />
      ) : page.data.items.length === 0 ? (
        <p className="notice warn">No session matches.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="sessions-table">
              <caption>Sessions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col">Player</th>
                  <th scope="col">Game</th>
                  <th scope="col">Currency</th>
                  <th scope="col">Status</th>
                  <th scope="col">Device</th>
                  <th scope="col">Started</th>
                  <th scope="col">Last activity</th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((s) => (
                  <tr key={s.session_id}>
                    <td>
                      <Link href={`${base}/${encodeURIComponent(s.session_id)}`} className="mono">
                        {s.session_id}
                      </Link>
                    </td>
                    <td className="mono">{s.player_id}</td>
                    <td className="mono">{s.game_symbol}</td>
                    <td>{s.currency}</td>
                    <td>
                      <StatusBadge status={s.status} />
                    </td>
                    <td>{s.device ?? '—'}</td>
                    <td>{when(s.created_at)}</td>
                    <td>{when(s.last_activity_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Session"
            next={
              page.data.next_cursor ? `${base}${qs({ ...filters, cursor: page.data.next_cursor })}` : null
            }
            first={sp.cursor ? `${base}${qs(filters)}` : null}
          />
        </>
      )}
    </>
  );
}
