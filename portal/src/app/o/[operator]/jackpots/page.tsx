import type { Metadata } from 'next';
import { FilterForm, SelectFilter } from '../../../../components/filters';
import { PagedTable } from '../../../../components/pager';
import { RoundLink } from '../../../../components/rounds';
import { DataTable } from '../../../../components/table';
import { Problem, StatusBadge } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { JackpotsView } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Jackpots' };

const STATUSES = ['pending', 'paid', 'forfeited'] as const;

/** Parts per million as a percentage of the stake: 5000 → "0.5%". */
const ppm = (v: number) => `${(v / 10_000).toString()}%`;

export default async function JackpotsPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const status = STATUSES.find((s) => s === sp.status);
  const res = await load<JackpotsView>(
    `/operators/${operator}/jackpots${qs({ limit: 50, status, cursor: sp.cursor })}`,
  );
  const base = `/o/${operator}/jackpots`;
  return (
    <>
      <h1>Jackpots</h1>
      <p className="lede">
        The progressive jackpots your players' spins feed: your own and the network jackpots you take part in.
        Each level's pool is shown now, in whole units of each currency, with the seed it restarts from and
        how many times it was hit. Below, every hit by one of your players, newest first.
      </p>
      {!res.ok ? (
        <Problem {...res} />
      ) : (
        <>
          {res.data.jackpots.length === 0 ? (
            <p className="notice warn" data-testid="no-jackpots">
              You take part in no jackpot.
            </p>
          ) : (
            res.data.jackpots.map((j) => (
              <section
                key={j.jackpot_id}
                aria-labelledby={`jp-${j.jackpot_id}`}
                data-testid="jackpot"
                data-jackpot={j.jackpot_id}
              >
                <h2 id={`jp-${j.jackpot_id}`}>
                  {j.name} <span className="mono hint">{j.jackpot_id}</span>
                </h2>
                <p>
                  <StatusBadge status={j.status} />{' '}
                  {j.scope === 'network' ? 'Network jackpot' : 'Your own jackpot'} · fed by{' '}
                  <span className="mono">{j.titles.join(', ')}</span>
                </p>
                <DataTable
                  testId="jackpot-pools"
                  caption={<>Pools of {j.name} now</>}
                  rows={j.levels.flatMap((l) => l.pools.map((p) => ({ l, p })))}
                  rowKey={({ l, p }) => `${l.level}-${p.currency}`}
                  rowAttrs={({ l, p }) => ({
                    'data-level': l.level,
                    'data-currency': p.currency,
                    'data-amount': String(p.amount_minor),
                    'data-hits': String(p.hits),
                  })}
                  columns={[
                    { head: 'Level', rowHeader: true, cell: ({ l }) => l.level },
                    { head: 'Currency', cell: ({ p }) => p.currency },
                    { head: 'Pool now', num: true, cell: ({ p }) => money(p.amount_minor, p.currency) },
                    { head: 'Seed', num: true, cell: ({ p }) => money(p.seed_minor, p.currency) },
                    {
                      head: 'Cap',
                      num: true,
                      cell: ({ p }) => (p.cap_minor === null ? 'none' : money(p.cap_minor, p.currency)),
                    },
                    { head: 'Contribution', num: true, cell: ({ l }) => ppm(l.contribution_rate_ppm) },
                    {
                      head: 'A hit every (staked)',
                      num: true,
                      cell: ({ p }) => money(p.hit_every_minor, p.currency),
                    },
                    { head: 'Hits', num: true, cell: ({ p }) => p.hits },
                  ]}
                />
              </section>
            ))
          )}

          <h2 id="hits">Hits</h2>
          <FilterForm label="Filter the hits" action={base} submit="Show">
            <SelectFilter
              id="hit-status"
              name="status"
              label="Status"
              value={status}
              options={STATUSES}
              any="any"
            />
          </FilterForm>
          <p className="hint">
            A hit is <strong>pending</strong> until its jackpot credit is paid, <strong>paid</strong> once the
            wallet took it, and <strong>forfeited</strong> when the round's bet never stood (its debit refused
            or rolled back): the amount then goes back to the pool.
          </p>
          <PagedTable
            empty={
              <>
                No hit{status ? ` with status ${status}` : ''}
                {sp.cursor ? ' on this page' : ' yet'}.
              </>
            }
            emptyClass="hint"
            emptyTestId="no-hits"
            testId="hits-table"
            caption="Jackpot hits by your players, newest first"
            rows={res.data.hits.items}
            rowKey={(h) => h.transaction_id}
            rowAttrs={(h) => ({
              'data-round': h.round_id,
              'data-status': h.status,
              'data-level': h.level,
              'data-amount': String(h.amount_minor),
            })}
            columns={[
              { head: 'Time', cell: (h) => when(h.created_at) },
              { head: 'Round', cell: (h) => <RoundLink operator={operator} roundId={h.round_id} /> },
              { head: 'Jackpot', tdClass: 'mono', cell: (h) => h.jackpot_id },
              { head: 'Level', cell: (h) => h.level },
              { head: 'Player', tdClass: 'mono', cell: (h) => h.player_id },
              { head: 'Amount', num: true, cell: (h) => money(h.amount_minor, h.currency) },
              { head: 'Status', cell: (h) => <StatusBadge status={h.status} /> },
            ]}
            pager={{
              label: 'Hit',
              base,
              query: { status },
              next: res.data.hits.next_cursor,
              current: sp.cursor,
              hash: '#hits',
            }}
          />
        </>
      )}
    </>
  );
}
