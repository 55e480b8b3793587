import type { StaffRevenueReport, StaffRevenueReportRow } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { CurrencyFilter, FilterForm, QuickLinks, TextFilter } from '../../../../components/filters';
import { type Column, DataTable } from '../../../../components/table';
import { Facts, Problem } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { BarChart, Legend, PALETTE } from '../../../../lib/charts';
import { exponent, money, units, when } from '../../../../lib/format';
import type { OperatorInfo } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Reports' };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Jackpot contributions (millionths of a minor unit, a decimal string) as an exact amount: "0.050000 EUR". */
function micros(value: string, currency: string): string {
  const v = BigInt(value);
  const e = exponent(currency) + 6;
  const abs = (v < 0n ? -v : v).toString().padStart(e + 1, '0');
  return `${v < 0n ? '−' : ''}${abs.slice(0, -e)}.${abs.slice(-e)} ${currency}`;
}

/** The report's money figures (each in minor units, a decimal string). */
type Figure = {
  [K in keyof StaffRevenueReportRow]: K extends `${string}_minor` ? K : never;
}[keyof StaffRevenueReportRow];

/** A money column: the amount formatted exactly from its minor units, the minor units kept for the tests. */
function amount(
  head: string,
  key: Figure,
  attrs: Record<string, string> = {},
): Column<StaffRevenueReportRow> {
  return {
    head,
    num: true,
    attrs: (r) => ({ ...attrs, 'data-minor': r[key] }),
    cell: (r) => money(r[key], r.currency ?? ''),
  };
}

/** Every money figure of a row, in the order the tables by title and by currency show them. */
const FIGURES: [Figure, string][] = [
  ['stakes_minor', 'Stakes'],
  ['cancelled_stakes_minor', 'Cancelled'],
  ['rolled_back_stakes_minor', 'Rolled back'],
  ['net_stakes_minor', 'Net stakes'],
  ['wins_minor', 'Wins'],
  ['free_round_wins_minor', 'Free-round wins'],
  ['jackpot_wins_minor', 'Jackpot wins'],
  ['tournament_payouts_minor', 'Tournament payouts'],
  ['prize_drop_payouts_minor', 'Prize-drop payouts'],
  ['ggr_minor', 'GGR'],
  ['ggy_minor', 'GGY'],
  ['ggy_gb_minor', 'GGY GB'],
  ['ggy_non_gb_minor', 'GGY non-GB'],
];

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export default async function ReportsPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  // Without a period: the last 30 days, today included.
  const now = Date.now();
  const from = sp.from && DAY.test(sp.from) ? sp.from : isoDay(now - 29 * 86_400_000);
  const to = sp.to && DAY.test(sp.to) ? sp.to : isoDay(now);
  const currency = sp.currency && /^[A-Z]{3}$/.test(sp.currency) ? sp.currency : undefined;
  const period = { from, to, currency };
  const report = (group_by: string) =>
    load<StaffRevenueReport>(`/operators/${operator}/reports/revenue${qs({ ...period, group_by })}`);
  const [info, byDay, byTitle, byCurrency] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    report('day'),
    report('title'),
    report('currency'),
  ]);
  if (!info.ok) return <Problem {...info} />;
  for (const r of [byDay, byTitle, byCurrency]) if (!r.ok) return <Problem {...r} />;
  if (!byDay.ok || !byTitle.ok || !byCurrency.ok) return null;
  const d = byDay.data;
  const active = d.rows.filter((r) => !r.no_activity && r.currency);
  const currencies = [...new Set(active.map((r) => r.currency!))].sort(byText);
  const days = [...new Set(d.rows.map((r) => r.day!))].sort(byText);
  const today = new Date(now);
  const monthStart = (back: number) =>
    isoDay(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - back, 1));
  const presets: [string, string, string][] = [
    ['Last 30 days', isoDay(now - 29 * 86_400_000), isoDay(now)],
    ['This month', monthStart(0), isoDay(now)],
    ['Last month', monthStart(1), isoDay(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0))],
  ];
  const csv = (group_by: string) => `/o/${operator}/reports/csv${qs({ ...period, group_by })}`;
  const filters = Object.entries(d.filters)
    .filter(([k, v]) => v !== null && k !== 'operator_id')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return (
    <>
      <h1>Reports</h1>
      <p className="lede">
        Daily figures from the journal, exact in each currency&apos;s minor units (currencies are never added
        together). Days are calendar days in the operator&apos;s reporting time zone.
      </p>
      <FilterForm label="Report period" submit="Show">
        <TextFilter name="from" label="From (first day)" type="date" value={from} required />
        <TextFilter name="to" label="To (last day)" type="date" value={to} required />
        <CurrencyFilter value={currency} currencies={info.data.allowed_currencies} any="All" />
      </FilterForm>
      <QuickLinks
        label="Quick periods"
        links={presets.map(([label, f, t]) => [
          label,
          `/o/${operator}/reports${qs({ from: f, to: t, currency })}`,
        ])}
      />
      <Facts
        items={[
          [
            'Report definition',
            <span key="definition" data-testid="definition-version">
              {d.definition_version}
            </span>,
          ],
          ['Software', d.software_version],
          ['Time zone', d.time_zone ?? '—'],
          ['Filters', filters],
          ['Generated', when(d.generated_at)],
        ]}
      />
      <details className="definitions" open>
        <summary>What GGR and GGY count ({d.definition_version})</summary>
        <ul>
          <li>
            <strong>GGR</strong> (the revenue share&apos;s basis) = net stakes − wins − jackpot wins.
            Free-round wins and tournament and prize-drop payouts are not deducted.
          </li>
          <li>
            <strong>GGY</strong> (the UK Gambling Commission&apos;s measure) = net stakes − every prize: wins,
            free-round wins, jackpot wins, tournament and prize-drop payouts. GB sessions apart from the rest.
          </li>
          <li>Net stakes = stakes − cancelled − rolled back.</li>
        </ul>
      </details>
      <nav className="pager" aria-label="CSV downloads">
        <a href={csv('day_title_currency')} download data-testid="csv-daily">
          Download CSV (daily, by title)
        </a>
        <a href={csv('day')} download>
          CSV by day
        </a>
        <a href={csv('title')} download>
          CSV by title
        </a>
        <a href={csv('currency')} download>
          CSV by currency
        </a>
      </nav>
      {d.no_activity ? (
        <p className="notice warn" data-testid="no-activity">
          No activity from {from} to {to}
          {currency ? ` in ${currency}` : ''}: no round counted and no money moved.
        </p>
      ) : null}

      <h2>GGR per day</h2>
      {currencies.length === 0 ? (
        <p className="hint">No activity: nothing to chart.</p>
      ) : (
        <div className="grid2">
          {currencies.map((cur) => {
            const rows = new Map(active.filter((r) => r.currency === cur).map((r) => [r.day!, r]));
            return (
              <figure key={cur} data-testid={`ggr-chart-${cur}`}>
                <figcaption>GGR and GGY per day, {cur}</figcaption>
                <BarChart
                  id={`ggr-${cur}`}
                  title={`GGR and GGY per day in ${cur}`}
                  description={`Each day from ${from} to ${to} in ${cur}; a day with no activity is zero.`}
                  series={[
                    { name: 'GGR', color: PALETTE[0]! },
                    { name: 'GGY', color: PALETTE[2]! },
                  ]}
                  groups={days.map((day) => {
                    const r = rows.get(day);
                    return {
                      label: day.slice(5),
                      values: [r ? units(r.ggr_minor, cur) : 0, r ? units(r.ggy_minor, cur) : 0],
                    };
                  })}
                />
                <Legend
                  items={[
                    { name: `GGR (${cur})`, color: PALETTE[0]! },
                    { name: `GGY (${cur})`, color: PALETTE[2]! },
                  ]}
                />
              </figure>
            );
          })}
        </div>
      )}
      <DataTable
        testId="by-day"
        caption="Per day and currency"
        rows={d.rows}
        rowKey={(r) => (r.no_activity || !r.currency ? `${r.day}-none` : `${r.day}-${r.currency}`)}
        rowAttrs={(r): Record<string, string> =>
          r.no_activity || !r.currency
            ? { 'data-day': r.day!, 'data-no-activity': 'true' }
            : { 'data-day': r.day!, 'data-currency': r.currency }
        }
        rowNote={(r) => (r.no_activity || !r.currency ? 'No activity' : null)}
        columns={[
          { head: 'Day', rowHeader: true, cell: (r) => r.day },
          { head: 'Currency', cell: (r) => r.currency },
          { head: 'Rounds', num: true, cell: (r) => r.rounds },
          { head: 'Players', num: true, cell: (r) => r.players },
          amount('Net stakes', 'net_stakes_minor'),
          amount('Wins', 'wins_minor'),
          amount('GGR', 'ggr_minor'),
          amount('GGY', 'ggy_minor'),
        ]}
      />

      <h2>By title</h2>
      {byTitle.data.rows.length === 0 ? (
        <p className="hint" data-testid="by-title-empty">
          No activity.
        </p>
      ) : (
        <>
          <div className="grid2">
            {currencies.map((cur) => {
              const rows = byTitle.data.rows.filter((r) => r.currency === cur);
              return (
                <figure key={cur} data-testid={`title-chart-${cur}`}>
                  <figcaption>GGR per title, {cur}</figcaption>
                  <BarChart
                    id={`title-${cur}`}
                    title={`GGR per title in ${cur}`}
                    description={`The period's GGR of each title in ${cur}.`}
                    series={[{ name: 'GGR', color: PALETTE[0]! }]}
                    groups={rows.map((r) => ({
                      label: r.game_symbol ?? '—',
                      values: [units(r.ggr_minor, cur)],
                    }))}
                  />
                </figure>
              );
            })}
          </div>
          <FigureTable testId="by-title" caption="Per title and currency" rows={byTitle.data.rows} titles />
        </>
      )}

      <h2>By currency</h2>
      {byCurrency.data.rows.length === 0 ? (
        <p className="hint">No activity.</p>
      ) : (
        <FigureTable testId="by-currency" caption="Per currency, every figure" rows={byCurrency.data.rows} />
      )}
      <p className="hint">
        Open the <Link href={`/o/${operator}/invoices`}>invoices</Link> for the monthly bills made of these
        figures.
      </p>
    </>
  );
}

/** Every figure of the rows (one currency each), by title or by currency. */
function FigureTable({
  testId,
  caption,
  rows,
  titles = false,
}: {
  testId: string;
  caption: string;
  rows: StaffRevenueReportRow[];
  titles?: boolean;
}) {
  const currency: Column<StaffRevenueReportRow> = { head: 'Currency', cell: (r) => r.currency ?? '' };
  return (
    <DataTable
      testId={testId}
      caption={caption}
      rows={rows}
      rowKey={(r) => `${r.game_symbol}-${r.currency ?? ''}`}
      rowAttrs={(r) => ({
        ...(r.game_symbol === null ? {} : { 'data-title': r.game_symbol }),
        'data-currency': r.currency ?? '',
      })}
      columns={[
        ...(titles
          ? [{ head: 'Title', rowHeader: true, cell: (r: StaffRevenueReportRow) => r.game_symbol }, currency]
          : [{ ...currency, rowHeader: true }]),
        { head: 'Rounds', num: true, cell: (r) => r.rounds },
        { head: 'Players', num: true, cell: (r) => r.players },
        ...FIGURES.map(([k, label]) => amount(label, k, { 'data-field': k })),
        {
          head: 'Jackpot contributions',
          num: true,
          attrs: () => ({ 'data-field': 'jackpot_contribution_micros' }),
          cell: (r) => micros(r.jackpot_contribution_micros, r.currency ?? ''),
        },
      ]}
    />
  );
}
