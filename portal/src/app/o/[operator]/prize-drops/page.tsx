import type { Metadata } from 'next';
import { PromoTitle, PromoWindow } from '../../../../components/promotions';
import { TableOr } from '../../../../components/table';
import { Problem } from '../../../../components/ui';
import { load, operatorParam } from '../../../../lib/api';
import { money } from '../../../../lib/format';
import type { StaffPrizeDrop } from '../../../../lib/types';
import { PromoStatus } from '../tournaments/status';

export const metadata: Metadata = { title: 'Prize drops' };

export default async function PrizeDropsPage({ params }: { params: Promise<{ operator: string }> }) {
  const operator = await operatorParam(params);
  const res = await load<{ items: StaffPrizeDrop[] }>(`/operators/${operator}/prize-drops`);
  const base = `/o/${operator}/prize-drops`;
  return (
    <>
      <h1>Prize drops</h1>
      <p className="lede">
        The prize drops you take part in: a number of prizes per currency, won at random by qualifying paid
        spins of the drop's titles between its start and its end, one prize per player. The prizes are shared
        with every operator of the drop; "your players" counts the ones your players won. Open a drop for its
        awards and their payouts.
      </p>
      {!res.ok ? (
        <Problem {...res} />
      ) : (
        <TableOr
          empty="You take part in no prize drop."
          emptyTestId="no-drops"
          testId="drops-table"
          caption="Prize drops, the latest start first"
          rows={res.data.items.flatMap((d) => d.pools.map((p, i) => ({ d, p, i })))}
          rowKey={({ d, p }) => `${d.drop_id}-${p.currency}`}
          rowAttrs={({ d, p }) => ({
            'data-drop': d.drop_id,
            'data-currency': p.currency,
            'data-state': d.state,
            'data-left': String(p.prizes_left),
            'data-total': String(p.prizes_total),
            'data-awarded': String(p.awarded_here),
          })}
          columns={[
            {
              head: 'Prize drop',
              cell: ({ d, i }) =>
                i === 0 ? (
                  <PromoTitle
                    href={`${base}/${encodeURIComponent(d.drop_id)}`}
                    name={d.name}
                    id={d.drop_id}
                  />
                ) : (
                  <span className="hint">{d.name} (continued)</span>
                ),
            },
            { head: 'Status', cell: ({ d }) => <PromoStatus status={d.state} /> },
            {
              head: 'Window (UTC)',
              cell: ({ d }) => <PromoWindow starts={d.starts_at} ends={d.ends_at} />,
            },
            { head: 'Currency', cell: ({ p }) => p.currency },
            { head: 'Prize', num: true, cell: ({ p }) => money(p.prize_minor, p.currency) },
            {
              head: 'Prizes left of total',
              num: true,
              cell: ({ p }) => (
                <>
                  {p.prizes_left} of {p.prizes_total}
                </>
              ),
            },
            {
              head: 'Won by your players (paid)',
              num: true,
              cell: ({ p }) => (
                <>
                  {p.awarded_here} ({p.paid_here})
                </>
              ),
            },
          ]}
        />
      )}
    </>
  );
}
