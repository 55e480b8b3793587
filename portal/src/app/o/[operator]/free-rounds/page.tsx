import type { Metadata } from 'next';
import Link from 'next/link';
import { Pager, Problem } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { FreeRoundCampaign, OperatorInfo } from '../../../../lib/types';
import { CampaignStatus } from './status';

export const metadata: Metadata = { title: 'Free rounds' };

export default async function FreeRoundsPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const [info, page] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<{ items: FreeRoundCampaign[]; next_cursor: string | null }>(
      `/operators/${operator}/free-rounds${qs({ limit: 50, cursor: sp.cursor })}`,
    ),
  ]);
  if (!info.ok) return <Problem {...info} />;
  const base = `/o/${operator}/free-rounds`;
  return (
    <>
      <h1>Free rounds</h1>
      <p className="lede">
        Free-round campaigns you created through the operator API: rounds of given slot titles at a fixed
        stake, paid by the provider. Open a campaign to see its players, its rounds and, as an admin, to
        cancel it.
      </p>
      {!page.ok ? (
        <Problem {...page} />
      ) : page.data.items.length === 0 ? (
        <p className="notice warn" data-testid="no-campaigns">
          No free-round campaign{sp.cursor ? ' on this page' : ' yet'}.
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="campaigns-table">
              <caption>Campaigns, by campaign id</caption>
              <thead>
                <tr>
                  <th scope="col">Campaign</th>
                  <th scope="col">Status</th>
                  <th scope="col">Games</th>
                  <th scope="col" className="num">
                    Stake
                  </th>
                  <th scope="col" className="num">
                    Rounds per player
                  </th>
                  <th scope="col">Window</th>
                  <th scope="col" className="num">
                    Players
                  </th>
                  <th scope="col" className="num">
                    Played
                  </th>
                  <th scope="col" className="num">
                    Remaining
                  </th>
                  <th scope="col" className="num">
                    Won
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((c) => (
                  <tr
                    key={c.campaign_id}
                    data-campaign={c.campaign_id}
                    data-status={c.status}
                    data-played={c.rounds_used}
                    data-remaining={c.rounds_remaining}
                  >
                    <td>
                      <Link href={`${base}/${encodeURIComponent(c.campaign_id)}`} className="mono">
                        {c.campaign_id}
                      </Link>
                    </td>
                    <td>
                      <CampaignStatus status={c.status} />
                    </td>
                    <td className="mono">{c.symbols.join(', ')}</td>
                    <td className="num">{money(c.bet_minor, c.currency)}</td>
                    <td className="num">{c.rounds}</td>
                    <td>
                      {when(c.valid_from)} to {when(c.expires_at)}
                    </td>
                    <td className="num">{c.players_count}</td>
                    <td className="num">{c.rounds_used}</td>
                    <td className="num">
                      {c.rounds_remaining}
                      {c.rounds_remaining > 0 && (c.status === 'cancelled' || c.status === 'expired')
                        ? ' (void)'
                        : ''}
                    </td>
                    <td className="num">{money(c.won_minor, c.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Campaign"
            next={page.data.next_cursor ? `${base}${qs({ cursor: page.data.next_cursor })}` : null}
            first={sp.cursor ? base : null}
          />
        </>
      )}
    </>
  );
}
