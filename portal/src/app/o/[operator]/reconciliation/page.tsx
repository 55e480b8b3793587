import type { Metadata } from 'next';
import { CurrencyFilter, DateTimeFilter, FilterForm, QuickLinks } from '../../../../components/filters';
import { RoundLink } from '../../../../components/rounds';
import { DataTable } from '../../../../components/table';
import { Problem } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { BarChart, Legend, PALETTE } from '../../../../lib/charts';
import { money, units, utcInput, when } from '../../../../lib/format';
import type { OperatorInfo, ReconciliationView } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Reconciliation' };

/** `YYYY-MM-DDTHH:MM` in UTC for a datetime-local input. */
const local = (d: Date) => d.toISOString().slice(0, 16);

export default async function ReconciliationPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  // Without a window: the last 7 days (`all=1`: from the beginning).
  const allTime = sp.all === '1';
  const defaultFrom = local(new Date(Date.now() - 7 * 86_400_000));
  const windowQuery = {
    from: sp.from || (allTime ? undefined : defaultFrom),
    to: sp.to || undefined,
    currency: sp.currency || undefined,
    all: allTime && !sp.from ? '1' : undefined,
  };
  const [info, rec] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<ReconciliationView>(
      `/operators/${operator}/reconciliation${qs({ from: utcInput(windowQuery.from), to: utcInput(windowQuery.to), currency: windowQuery.currency })}`,
    ),
  ]);
  if (!info.ok) return <Problem {...info} />;
  if (!rec.ok) return <Problem {...rec} />;
  const r = rec.data;
  const now = new Date();
  const presets: [string, Date | null][] = [
    ['Last 24 hours', new Date(now.getTime() - 86_400_000)],
    ['Last 7 days', new Date(now.getTime() - 7 * 86_400_000)],
    ['Last 30 days', new Date(now.getTime() - 30 * 86_400_000)],
    ['All time', null],
  ];
  const base = `/o/${operator}/reconciliation`;
  const currencies = [...new Set(r.by_day.map((d) => d.currency))].sort();
  const days = [...new Set(r.by_day.map((d) => d.day))].sort();
  return (
    <>
      <h1>Reconciliation</h1>
      <p className="lede">
        Wallet deltas (journalled successful debits, credits, cancels and rollbacks) against game deltas (win
        − bet per round) for the rounds created in the window, per currency, in integer minor units.
      </p>
      <FilterForm label="Reconciliation window" submit="Reconcile">
        <DateTimeFilter name="from" label="From (UTC)" value={windowQuery.from} />
        <DateTimeFilter name="to" label="To (UTC, exclusive)" value={windowQuery.to} />
        <CurrencyFilter value={windowQuery.currency} currencies={info.data.allowed_currencies} any="All" />
        {windowQuery.all ? <input type="hidden" name="all" value="1" /> : null}
      </FilterForm>
      <QuickLinks
        label="Quick windows"
        links={presets.map(([label, from]) => [
          label,
          `${base}${qs({ from: from ? local(from) : undefined, all: from ? undefined : '1', currency: windowQuery.currency })}`,
        ])}
      />
      <p className="hint">
        Window: {r.from ? when(r.from) : 'the beginning'} to {when(r.to)}
      </p>
      <div
        className={`notice indicator ${r.balanced ? 'ok' : 'bad'}`}
        role="status"
        data-testid="balanced"
        data-balanced={String(r.balanced)}
      >
        {r.balanced
          ? '✓ Balanced: every currency has a zero difference and no pending transaction.'
          : '✗ Not balanced: see the currencies and the rounds below.'}
      </div>
      <DataTable
        testId="recon-table"
        caption="Per currency"
        rows={r.currencies}
        rowKey={(c) => c.currency}
        rowAttrs={(c) => ({ 'data-currency': c.currency })}
        emptyRow="No rounds in this window."
        columns={[
          { head: 'Currency', rowHeader: true, cell: (c) => c.currency },
          { head: 'Rounds', num: true, cell: (c) => c.rounds },
          { head: 'Transactions', num: true, cell: (c) => c.transactions },
          {
            head: 'Wallet delta',
            num: true,
            attrs: (c) => ({ 'data-minor': String(c.wallet_delta_minor) }),
            cell: (c) => money(c.wallet_delta_minor, c.currency),
          },
          {
            head: 'Game delta',
            num: true,
            attrs: (c) => ({ 'data-minor': String(c.game_delta_minor) }),
            cell: (c) => money(c.game_delta_minor, c.currency),
          },
          { head: 'Difference', num: true, cell: (c) => money(c.difference_minor, c.currency) },
          { head: 'Pending', num: true, cell: (c) => c.pending_transactions },
          { head: 'Balanced', cell: (c) => (c.balanced ? 'yes' : 'no') },
        ]}
      />
      <p>
        <a
          className="button secondary"
          href={`${base}/csv${qs(windowQuery)}`}
          download={`reconciliation-${operator}.csv`}
          data-testid="csv-download"
        >
          Download CSV
        </a>
      </p>
      <h2>What makes a difference</h2>
      {r.items.length === 0 ? (
        <p className="notice ok">No round differs and none has a pending transaction.</p>
      ) : (
        <>
          {r.items_truncated ? (
            <p className="notice warn">More rounds differ than are listed here: narrow the window.</p>
          ) : null}
          <DataTable
            testId="recon-items"
            caption="Rounds whose wallet effect differs from their history, or with a pending transaction"
            rows={r.items}
            rowKey={(i) => i.round_id}
            columns={[
              { head: 'Round', cell: (i) => <RoundLink operator={operator} roundId={i.round_id} /> },
              { head: 'Currency', cell: (i) => i.currency },
              { head: 'Round status', cell: (i) => i.round_status ?? '—' },
              { head: 'Wallet', num: true, cell: (i) => money(i.wallet_delta_minor, i.currency) },
              { head: 'Game', num: true, cell: (i) => money(i.game_delta_minor, i.currency) },
              { head: 'Difference', num: true, cell: (i) => money(i.difference_minor, i.currency) },
              { head: 'Pending', num: true, cell: (i) => i.pending_transactions },
              { head: 'Transactions', tdClass: 'mono', cell: (i) => i.transaction_ids.join(', ') },
            ]}
          />
        </>
      )}
      <h2>Differences over time</h2>
      {r.by_day.length === 0 ? (
        <p className="hint">No difference on any day of the window.</p>
      ) : (
        <figure data-testid="diff-chart">
          <figcaption>Difference (wallet − game) per UTC day of round creation</figcaption>
          {currencies.map((cur, ci) => (
            <div key={cur}>
              <BarChart
                id={`diff-${cur}`}
                title={`Reconciliation difference per day in ${cur}`}
                description={`Sum of the differing rounds' wallet minus game delta, per day, in ${cur}.`}
                series={[{ name: `Difference (${cur})`, color: PALETTE[(ci + 3) % PALETTE.length]! }]}
                groups={days.map((day) => {
                  const d = r.by_day.find((x) => x.day === day && x.currency === cur);
                  return { label: day.slice(5), values: [d ? units(d.difference_minor, cur) : 0] };
                })}
              />
              <Legend items={[{ name: `Difference (${cur})`, color: PALETTE[(ci + 3) % PALETTE.length]! }]} />
            </div>
          ))}
          <details>
            <summary>Show the numbers</summary>
            <DataTable
              caption="Differences per day"
              rows={r.by_day}
              rowKey={(d) => `${d.day}-${d.currency}`}
              columns={[
                { head: 'Day (UTC)', cell: (d) => d.day },
                { head: 'Currency', cell: (d) => d.currency },
                { head: 'Rounds', num: true, cell: (d) => d.rounds },
                { head: 'Difference', num: true, cell: (d) => money(d.difference_minor, d.currency) },
                { head: 'Pending', num: true, cell: (d) => d.pending },
              ]}
            />
          </details>
        </figure>
      )}
    </>
  );
}
