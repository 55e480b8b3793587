import type { Metadata } from 'next';
import Link from 'next/link';
import { PagedTable } from '../../../../../components/pager';
import { DataTable } from '../../../../../components/table';
import { Facts, Problem } from '../../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs, seg } from '../../../../../lib/api';
import { money, when } from '../../../../../lib/format';
import type { StaffPrizeDropDetail } from '../../../../../lib/types';
import { PromoStatus } from '../../tournaments/status';

export const metadata: Metadata = { title: 'Prize drop' };

export default async function PrizeDropPage({ params, searchParams }: OperatorPageProps<{ drop: string }>) {
  const operator = await operatorParam(params);
  const { drop } = await params;
  const sp = await searchParams;
  const res = await load<StaffPrizeDropDetail>(
    `/operators/${operator}/prize-drops/${seg(drop)}${qs({ limit: 50, cursor: sp.cursor })}`,
  );
  if (!res.ok) return <Problem {...res} />;
  const d = res.data;
  const base = `/o/${operator}/prize-drops/${encodeURIComponent(d.drop_id)}`;
  return (
    <>
      <p>
        <Link href={`/o/${operator}/prize-drops`}>← Prize drops</Link>
      </p>
      <h1>
        {d.name} <span className="mono hint">{d.drop_id}</span>
      </h1>
      <Facts
        items={[
          ['Status', <PromoStatus key="s" status={d.state} />],
          ['Starts', when(d.starts_at)],
          ['Ends', when(d.ends_at)],
          [
            'Titles',
            <span key="t" className="mono">
              {d.titles.join(', ')}
            </span>,
          ],
          ...(d.cancelled_at ? ([['Cancelled', when(d.cancelled_at)]] as [string, string][]) : []),
        ]}
      />
      <h2>Prizes</h2>
      <DataTable
        testId="pools-table"
        caption="Prizes per currency (shared by every operator of the drop)"
        rows={d.pools}
        rowKey={(p) => p.currency}
        rowAttrs={(p) => ({
          'data-currency': p.currency,
          'data-left': String(p.prizes_left),
          'data-total': String(p.prizes_total),
        })}
        columns={[
          { head: 'Currency', rowHeader: true, cell: (p) => p.currency },
          { head: 'Prize', num: true, cell: (p) => money(p.prize_minor, p.currency) },
          { head: 'Total', num: true, cell: (p) => p.prizes_total },
          { head: 'Left', num: true, cell: (p) => p.prizes_left },
          { head: 'Least stake', num: true, cell: (p) => money(p.min_stake_minor, p.currency) },
          { head: 'Odds per spin', num: true, cell: (p) => <>1 in {p.award_every_spins}</> },
          {
            head: 'Won by your players',
            num: true,
            cell: (p) => (
              <>
                {p.awarded_here} ({money(p.awarded_here_minor, p.currency)})
              </>
            ),
          },
        ]}
      />

      <h2 id="awards">Awards to your players</h2>
      <p className="hint">
        An award is <strong>pending</strong> until its prize's credit (a promo_win) is paid, and{' '}
        <strong>paid</strong> once the wallet took it.
      </p>
      <PagedTable
        empty={<>None of your players has won a prize of this drop{sp.cursor ? ' on this page' : ''}.</>}
        emptyClass="hint"
        emptyTestId="no-awards"
        testId="awards-table"
        caption="Awards, newest first"
        rows={d.awards.items}
        rowKey={(a) => a.payout_id}
        rowAttrs={(a) => ({ 'data-payout': a.payout_id, 'data-status': a.status })}
        columns={[
          { head: 'Time', cell: (a) => when(a.created_at) },
          { head: 'Player', tdClass: 'mono', cell: (a) => a.player_id },
          { head: 'Prize', num: true, cell: (a) => money(a.amount_minor, a.currency) },
          { head: 'Payout', tdClass: 'mono', cell: (a) => a.payout_id },
          {
            head: 'Status',
            cell: (a) => (
              <>
                <PromoStatus status={a.status} />
                {a.paid_at ? <span className="hint"> {when(a.paid_at)}</span> : null}
              </>
            ),
          },
        ]}
        pager={{ label: 'Award', base, next: d.awards.next_cursor, current: sp.cursor, hash: '#awards' }}
      />
    </>
  );
}
