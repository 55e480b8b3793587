import type { StaffRevenueReport, StaffRevenueReportRow } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Facts, Field, Problem } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
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

/** A money cell: the amount formatted exactly from its minor units, the minor units kept for the tests. */
function Amount({ minor, currency }: { minor: string; currency: string }) {
  return (
    <td className="num" data-minor={minor}>
      {money(minor, currency)}
    </td>
  );
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export default async function ReportsPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
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
      <form className="filters" method="get" aria-label="Report period">
        <Field id="from" label="From (first day)">
          <input id="from" name="from" type="date" defaultValue={from} required />
        </Field>
        <Field id="to" label="To (last day)">
          <input id="to" name="to" type="date" defaultValue={to} required />
        </Field>
        <Field id="currency" label="Currency">
          <select id="currency" name="currency" defaultValue={currency ?? ''}>
            <option value="">All</option>
            {info.data.allowed_currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">Show</button>
      </form>
      <nav className="pager" aria-label="Quick periods">
        {presets.map(([label, f, t]) => (
          <Link key={label} href={`/o/${operator}/reports${qs({ from: f, to: t, currency })}`}>
            {label}
          </Link>
        ))}
      </nav>
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
      <div className="table-wrap">
        <table data-testid="by-day">
          <caption>Per day and currency</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Currency</th>
              <th scope="col" className="num">
                Rounds
              </th>
              <th scope="col" className="num">
                Players
              </th>
              <th scope="col" className="num">
                Net stakes
              </th>
              <th scope="col" className="num">
                Wins
              </th>
              <th scope="col" className="num">
                GGR
              </th>
              <th scope="col" className="num">
                GGY
              </th>
            </tr>
          </thead>
          <tbody>
            {d.rows.map((r) =>
              r.no_activity || !r.currency ? (
                <tr key={`${r.day}-none`} data-day={r.day} data-no-activity="true">
                  <th scope="row">{r.day}</th>
                  <td colSpan={7}>No activity</td>
                </tr>
              ) : (
                <tr key={`${r.day}-${r.currency}`} data-day={r.day} data-currency={r.currency}>
                  <th scope="row">{r.day}</th>
                  <td>{r.currency}</td>
                  <td className="num">{r.rounds}</td>
                  <td className="num">{r.players}</td>
                  <Amount minor={r.net_stakes_minor} currency={r.currency} />
                  <Amount minor={r.wins_minor} currency={r.currency} />
                  <Amount minor={r.ggr_minor} currency={r.currency} />
                  <Amount minor={r.ggy_minor} currency={r.currency} />
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>

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
  const cols: [keyof StaffRevenueReportRow, string][] = [
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
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {titles ? <th scope="col">Title</th> : null}
            <th scope="col">Currency</th>
            <th scope="col" className="num">
              Rounds
            </th>
            <th scope="col" className="num">
              Players
            </th>
            {cols.map(([k, label]) => (
              <th key={k} scope="col" className="num">
                {label}
              </th>
            ))}
            <th scope="col" className="num">
              Jackpot contributions
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const cur = r.currency ?? '';
            return (
              <tr key={`${r.game_symbol}-${cur}`} data-title={r.game_symbol ?? undefined} data-currency={cur}>
                {titles ? <th scope="row">{r.game_symbol}</th> : null}
                {titles ? <td>{cur}</td> : <th scope="row">{cur}</th>}
                <td className="num">{r.rounds}</td>
                <td className="num">{r.players}</td>
                {cols.map(([k]) => (
                  <td key={k} className="num" data-field={k} data-minor={String(r[k])}>
                    {money(String(r[k]), cur)}
                  </td>
                ))}
                <td className="num" data-field="jackpot_contribution_micros">
                  {micros(r.jackpot_contribution_micros, cur)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
