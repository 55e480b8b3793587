import type { Metadata } from 'next';
import Link from 'next/link';
import { Field, Pager, Problem, StatusBadge } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
import { money, utcInput, when } from '../../../../lib/format';
import type { OperatorInfo, OperatorRound, Page } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Rounds' };

const STATUSES = ['open', 'settling', 'completed', 'rejected', 'cancelled', 'rolled_back'];

export default async function RoundsPage({
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
    session_id: sp.session_id?.trim() || undefined,
    game_symbol: sp.game_symbol?.trim() || undefined,
    currency: sp.currency || undefined,
    status: sp.status || undefined,
    stuck: sp.stuck === 'true' ? 'true' : undefined,
    from: sp.from || undefined,
    to: sp.to || undefined,
  };
  const apiQuery = { ...filters, from: utcInput(filters.from), to: utcInput(filters.to), cursor: sp.cursor };
  const [info, page] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<Page<OperatorRound>>(`/operators/${operator}/rounds${qs(apiQuery)}`),
  ]);
  if (!info.ok) return <Problem {...info} />;
  const base = `/o/${operator}/rounds`;
  return (
    <>
      <h1>Rounds</h1>
      <form className="filters" method="get" aria-label="Search rounds">
        <Field id="player_id" label="Player (external id)">
          <input id="player_id" name="player_id" defaultValue={filters.player_id ?? ''} autoComplete="off" />
        </Field>
        <Field id="session_id" label="Session">
          <input
            id="session_id"
            name="session_id"
            defaultValue={filters.session_id ?? ''}
            autoComplete="off"
          />
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
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </Field>
        <Field id="from" label="From (UTC)">
          <input id="from" name="from" type="datetime-local" defaultValue={filters.from ?? ''} />
        </Field>
        <Field id="to" label="To (UTC, exclusive)">
          <input id="to" name="to" type="datetime-local" defaultValue={filters.to ?? ''} />
        </Field>
        <div className="field">
          <label htmlFor="stuck">
            <input
              id="stuck"
              name="stuck"
              type="checkbox"
              value="true"
              defaultChecked={filters.stuck === 'true'}
            />{' '}
            Stuck only
          </label>
        </div>
        <button type="submit">Search</button>
      </form>
      {!page.ok ? (
        <Problem {...page} />
      ) : page.data.items.length === 0 ? (
        <p className="notice warn">No round matches.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="rounds-table">
              <caption>Rounds, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Round</th>
                  <th scope="col">Player</th>
                  <th scope="col">Game</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Bet
                  </th>
                  <th scope="col" className="num">
                    Win
                  </th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((r) => (
                  <tr key={r.round_id}>
                    <td>
                      <Link href={`${base}/${encodeURIComponent(r.round_id)}`} className="mono">
                        {r.round_id}
                      </Link>
                    </td>
                    <td className="mono">{r.player_id}</td>
                    <td className="mono">{r.game_symbol}</td>
                    <td>
                      <StatusBadge status={r.status} />{' '}
                      {r.rejection_code ? <span className="mono">{r.rejection_code}</span> : null}{' '}
                      {r.stuck ? <StatusBadge status="stuck" /> : null}
                    </td>
                    <td className="num">{money(r.bet_minor, r.currency)}</td>
                    <td className="num">{money(r.win_minor, r.currency)}</td>
                    <td>{when(r.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Round"
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
