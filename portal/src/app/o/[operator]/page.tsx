import type { Metadata } from 'next';
import Link from 'next/link';
import { FilterForm, SelectFilter } from '../../../components/filters';
import { DataTable } from '../../../components/table';
import { Facts, Problem } from '../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../lib/api';
import { BarChart, Legend, PALETTE, RtpChart, type RtpRow } from '../../../lib/charts';
import { money, percentOf, ratioForChart, units } from '../../../lib/format';
import type { Charts, OperatorInfo } from '../../../lib/types';

export const metadata: Metadata = { title: 'Overview' };

const WINDOWS = [7, 30, 90] as const;

/** Every UTC day from `from` to `to` (so days without play show as zero). */
function days(from: string, to: string): string[] {
  const out: string[] = [];
  const end = new Date(to).getTime();
  for (let t = Date.parse(from.slice(0, 10)); t < end && out.length < 400; t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

export default async function Overview({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const windowDays = WINDOWS.find((d) => String(d) === sp.days) ?? 30;
  const now = new Date();
  const from = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (windowDays - 1) * 86_400_000,
  );
  const [info, charts] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<Charts>(`/operators/${operator}/charts${qs({ from: from.toISOString() })}`),
  ]);
  if (!info.ok) return <Problem {...info} />;
  if (!charts.ok) return <Problem {...charts} />;
  const o = info.data;
  const c = charts.data;
  const currencies = [...new Set(c.daily.map((d) => d.currency))].sort();
  const axis = days(c.from, c.to);
  const totals = currencies.map((cur) => {
    const rows = c.daily.filter((d) => d.currency === cur);
    const bet = rows.reduce((s, d) => s + BigInt(d.bet_minor), 0n);
    const win = rows.reduce((s, d) => s + BigInt(d.win_minor), 0n);
    return { cur, rounds: rows.reduce((s, d) => s + d.rounds, 0), bet, win };
  });
  const rtpRows: RtpRow[] = c.titles.map((t) => ({
    label: `${t.title} · ${t.currency}`,
    measured: ratioForChart(t.win_minor, t.bet_minor),
    stored: t.stored_rtp ? Number(t.stored_rtp) / 100 : null,
    rounds: t.rounds,
  }));
  return (
    <>
      <h1>
        {o.name} <span className="hint">({o.operator_id})</span>
      </h1>
      <Facts
        items={[
          ['Status', o.status],
          ['Currencies', o.allowed_currencies.join(', ')],
          ['Default currency', o.default_currency],
          ['Bet limits (minor units)', `${o.bet_limits.min} – ${o.bet_limits.max}`],
          ['Wallet', o.wallet_base_url ?? 'not configured'],
          ['Your role', o.role],
        ]}
      />
      <FilterForm label="Chart window" submit="Show">
        <SelectFilter
          name="days"
          label="Window"
          value={String(windowDays)}
          options={WINDOWS.map((d) => [String(d), `Last ${d} days`] as const)}
          any={null}
        />
      </FilterForm>
      <h2>Bet and win per day</h2>
      {currencies.length === 0 ? (
        <p className="notice warn">No rounds in the last {windowDays} days.</p>
      ) : (
        <div className="grid2">
          {currencies.map((cur, i) => {
            const byDay = new Map(c.daily.filter((d) => d.currency === cur).map((d) => [d.day, d]));
            const t = totals[i]!;
            return (
              <figure key={cur} data-testid={`bet-win-${cur}`}>
                <figcaption>
                  {cur}: {t.rounds.toLocaleString('en')} rounds, bet {money(t.bet, cur)}, win{' '}
                  {money(t.win, cur)}
                  {t.bet > 0n ? `, measured payout ${percentOf(t.win, t.bet)}` : ''}
                </figcaption>
                <BarChart
                  id={`bw-${cur}`}
                  title={`Bet and win per day in ${cur}`}
                  description={`Daily totals over the last ${windowDays} days (UTC days), in ${cur}.`}
                  series={[
                    { name: 'Bet', color: PALETTE[0]! },
                    { name: 'Win', color: PALETTE[1]! },
                  ]}
                  groups={axis.map((day) => {
                    const d = byDay.get(day);
                    return {
                      label: day.slice(5),
                      values: [d ? units(d.bet_minor, cur) : 0, d ? units(d.win_minor, cur) : 0],
                    };
                  })}
                />
                <Legend
                  items={[
                    { name: `Bet (${cur})`, color: PALETTE[0]! },
                    { name: `Win (${cur})`, color: PALETTE[1]! },
                  ]}
                />
                <details>
                  <summary>Show the numbers</summary>
                  <DataTable
                    caption={<>Bet and win per day, {cur}</>}
                    rows={[...byDay.values()]}
                    rowKey={(d) => d.day}
                    columns={[
                      { head: 'Day (UTC)', cell: (d) => d.day },
                      { head: 'Rounds', num: true, cell: (d) => d.rounds },
                      { head: 'Bet', num: true, cell: (d) => money(d.bet_minor, cur) },
                      { head: 'Win', num: true, cell: (d) => money(d.win_minor, cur) },
                    ]}
                  />
                </details>
              </figure>
            );
          })}
        </div>
      )}
      <h2>Measured payout against stored RTP, per title</h2>
      <p className="hint">
        Stored RTP is metadata declared for the title, not a measured rate; few rounds make the measured
        figure noisy.
      </p>
      {rtpRows.length === 0 ? (
        <p className="notice warn">No rounds to measure.</p>
      ) : (
        <figure data-testid="rtp-chart">
          <RtpChart
            id="rtp"
            title="Measured payout per title against its stored RTP"
            description="Bars: win divided by bet over the window. Marks: the stored RTP of the title."
            rows={rtpRows}
          />
          <Legend
            items={[
              { name: 'Measured (win ÷ bet)', color: PALETTE[0]! },
              { name: 'Stored RTP', color: '#1b1f24', shape: 'line' },
            ]}
          />
          <details>
            <summary>Show the numbers</summary>
            <DataTable
              caption="Payout per title"
              rows={c.titles}
              rowKey={(t) => `${t.symbol}-${t.currency}`}
              columns={[
                {
                  head: 'Title',
                  cell: (t) => (
                    <Link
                      href={`/o/${operator}/rounds${qs({ game_symbol: t.symbol, currency: t.currency })}`}
                    >
                      {t.title}
                    </Link>
                  ),
                },
                { head: 'Currency', cell: (t) => t.currency },
                { head: 'Rounds', num: true, cell: (t) => t.rounds },
                { head: 'Bet', num: true, cell: (t) => money(t.bet_minor, t.currency) },
                { head: 'Win', num: true, cell: (t) => money(t.win_minor, t.currency) },
                {
                  head: 'Measured',
                  num: true,
                  cell: (t) => (BigInt(t.bet_minor) > 0n ? percentOf(t.win_minor, t.bet_minor) : '—'),
                },
                { head: 'Stored RTP', num: true, cell: (t) => (t.stored_rtp ? `${t.stored_rtp}%` : '—') },
              ]}
            />
          </details>
        </figure>
      )}
    </>
  );
}
