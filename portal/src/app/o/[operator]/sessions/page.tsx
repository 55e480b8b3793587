import type { Metadata } from 'next';
import Link from 'next/link';
import { FilterForm, PlayFilterControls, playFilters } from '../../../../components/filters';
import { LoadedPage } from '../../../../components/pager';
import { Problem, StatusBadge } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { when } from '../../../../lib/format';
import type { OperatorInfo, Page, SessionItem } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Sessions' };

export default async function SessionsPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const filters = playFilters(sp);
  const [info, page] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<Page<SessionItem>>(`/operators/${operator}/sessions${qs({ ...filters, cursor: sp.cursor })}`),
  ]);
  if (!info.ok) return <Problem {...info} />;
  const base = `/o/${operator}/sessions`;
  return (
    <>
      <h1>Sessions</h1>
      <FilterForm label="Search sessions">
        <PlayFilterControls
          filters={filters}
          currencies={info.data.allowed_currencies}
          statuses={[
            ['active', 'Active'],
            ['closed', 'Closed'],
            ['revoked', 'Revoked'],
          ]}
        />
      </FilterForm>
      <LoadedPage
        page={page}
        empty="No session matches."
        testId="sessions-table"
        caption="Sessions, newest first"
        rowKey={(s) => s.session_id}
        columns={[
          {
            head: 'Session',
            cell: (s) => (
              <Link href={`${base}/${encodeURIComponent(s.session_id)}`} className="mono">
                {s.session_id}
              </Link>
            ),
          },
          { head: 'Player', tdClass: 'mono', cell: (s) => s.player_id },
          { head: 'Game', tdClass: 'mono', cell: (s) => s.game_symbol },
          { head: 'Currency', cell: (s) => s.currency },
          { head: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
          { head: 'Device', cell: (s) => s.device ?? '—' },
          { head: 'Started', cell: (s) => when(s.created_at) },
          { head: 'Last activity', cell: (s) => when(s.last_activity_at) },
        ]}
        pager={{ label: 'Session', base, query: filters, current: sp.cursor }}
      />
    </>
  );
}
