import type { Metadata } from 'next';
import Link from 'next/link';
import { Problem } from '../../../../components/ui';
import { load, operatorParam } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
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
      ) : res.data.items.length === 0 ? (
        <p className="notice warn" data-testid="no-drops">
          You take part in no prize drop.
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="drops-table">
            <caption>Prize drops, the latest start first</caption>
            <thead>
              <tr>
                <th scope="col">Prize drop</th>
                <th scope="col">Status</th>
                <th scope="col">Window (UTC)</th>
                <th scope="col">Currency</th>
                <th scope="col" className="num">
                  Prize
                </th>
                <th scope="col" className="num">
                  Prizes left of total
                </th>
                <th scope="col" className="num">
                  Won by your players (paid)
                </th>
              </tr>
            </thead>
            <tbody>
              {res.data.items.flatMap((d) =>
                d.pools.map((p, i) => (
                  <tr
                    key={`${d.drop_id}-${p.currency}`}
                    data-drop={d.drop_id}
                    data-currency={p.currency}
                    data-state={d.state}
                    data-left={p.prizes_left}
                    data-total={p.prizes_total}
                    data-awarded={p.awarded_here}
                  >
                    <td>
                      {i === 0 ? (
                        <>
                          <Link href={`${base}/${encodeURIComponent(d.drop_id)}`}>{d.name}</Link>
                          <br />
                          <span className="mono hint">{d.drop_id}</span>
                        </>
                      ) : (
                        <span className="hint">{d.name} (continued)</span>
                      )}
                    </td>
                    <td>
                      <PromoStatus status={d.state} />
                    </td>
                    <td>
                      {when(d.starts_at)} to {when(d.ends_at)}
                    </td>
                    <td>{p.currency}</td>
                    <td className="num">{money(p.prize_minor, p.currency)}</td>
                    <td className="num">
                      {p.prizes_left} of {p.prizes_total}
                    </td>
                    <td className="num">
                      {p.awarded_here} ({p.paid_here})
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
