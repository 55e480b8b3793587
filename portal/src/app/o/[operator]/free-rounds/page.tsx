import type { Metadata } from 'next';
import Link from 'next/link';
import { LoadedPage } from '../../../../components/pager';
import { Problem } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { FreeRoundCampaign, OperatorInfo } from '../../../../lib/types';
import { CampaignStatus } from './status';

export const metadata: Metadata = { title: 'Free rounds' };

export default async function FreeRoundsPage({ params, searchParams }: OperatorPageProps) {
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
      <LoadedPage
        page={page}
        empty={<>No free-round campaign{sp.cursor ? ' on this page' : ' yet'}.</>}
        emptyTestId="no-campaigns"
        testId="campaigns-table"
        caption="Campaigns, by campaign id"
        rowKey={(c) => c.campaign_id}
        rowAttrs={(c) => ({
          'data-campaign': c.campaign_id,
          'data-status': c.status,
          'data-played': String(c.rounds_used),
          'data-remaining': String(c.rounds_remaining),
        })}
        columns={[
          {
            head: 'Campaign',
            cell: (c) => (
              <Link href={`${base}/${encodeURIComponent(c.campaign_id)}`} className="mono">
                {c.campaign_id}
              </Link>
            ),
          },
          { head: 'Status', cell: (c) => <CampaignStatus status={c.status} /> },
          { head: 'Games', tdClass: 'mono', cell: (c) => c.symbols.join(', ') },
          { head: 'Stake', num: true, cell: (c) => money(c.bet_minor, c.currency) },
          { head: 'Rounds per player', num: true, cell: (c) => c.rounds },
          {
            head: 'Window',
            cell: (c) => (
              <>
                {when(c.valid_from)} to {when(c.expires_at)}
              </>
            ),
          },
          { head: 'Players', num: true, cell: (c) => c.players_count },
          { head: 'Played', num: true, cell: (c) => c.rounds_used },
          {
            head: 'Remaining',
            num: true,
            cell: (c) => (
              <>
                {c.rounds_remaining}
                {c.rounds_remaining > 0 && (c.status === 'cancelled' || c.status === 'expired')
                  ? ' (void)'
                  : ''}
              </>
            ),
          },
          { head: 'Won', num: true, cell: (c) => money(c.won_minor, c.currency) },
        ]}
        pager={{ label: 'Campaign', base, current: sp.cursor }}
      />
    </>
  );
}
