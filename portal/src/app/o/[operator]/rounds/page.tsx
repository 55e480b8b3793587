import type { Metadata } from 'next';
import {
  CheckFilter,
  DateTimeFilter,
  FilterForm,
  PlayFilterControls,
  playFilters,
} from '../../../../components/filters';
import { LoadedPage } from '../../../../components/pager';
import { roundColumns } from '../../../../components/rounds';
import { Problem } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { utcInput } from '../../../../lib/format';
import type { OperatorInfo, OperatorRound, Page } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Rounds' };

const STATUSES = ['open', 'settling', 'completed', 'rejected', 'cancelled', 'rolled_back'];

export default async function RoundsPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const filters = {
    ...playFilters(sp, true),
    stuck: sp.stuck === 'true' ? 'true' : undefined,
    from: sp.from || undefined,
    to: sp.to || undefined,
  };
  const apiQuery = { ...filters, from: utcInput(filters.from), to: utcInput(filters.to), cursor: sp.cursor };
  const [info, page] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<Page<OperatorRound>>(`/operators/${operator}/rounds${qs(apiQuery)}`),
  ]);
  if (!info.ok) return <Problem {...info} />;
  const base = `/o/${operator}/rounds`;
  const col = roundColumns(operator);
  return (
    <>
      <h1>Rounds</h1>
      <FilterForm label="Search rounds">
        <PlayFilterControls
          filters={filters}
          currencies={info.data.allowed_currencies}
          statuses={STATUSES.map((s) => [s, s.replace('_', ' ')] as const)}
        />
        <DateTimeFilter name="from" label="From (UTC)" value={filters.from} />
        <DateTimeFilter name="to" label="To (UTC, exclusive)" value={filters.to} />
        <CheckFilter name="stuck" label="Stuck only" checked={filters.stuck === 'true'} />
      </FilterForm>
      <LoadedPage
        page={page}
        empty="No round matches."
        testId="rounds-table"
        caption="Rounds, newest first"
        rowKey={(r) => r.round_id}
        columns={[col.round, col.player, col.game, col.status, col.bet, col.win, col.created]}
        pager={{ label: 'Round', base, query: filters, current: sp.cursor }}
      />
    </>
  );
}
