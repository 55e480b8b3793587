import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { TableOr } from '../components/table';
import { loadMe } from '../lib/api';

export const metadata: Metadata = { title: 'Operators' };

/** Home: straight to the operator when there is one; otherwise the list (provider staff see all). */
export default async function Home({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const me = await loadMe();
  const sp = await searchParams;
  const wanted = typeof sp.operator === 'string' ? sp.operator : undefined;
  if (wanted && me.operators.some((o) => o.operator_id === wanted))
    redirect(`/o/${encodeURIComponent(wanted)}`);
  if (me.operators.length === 1) redirect(`/o/${encodeURIComponent(me.operators[0]!.operator_id)}`);
  return (
    <main id="main">
      <h1>Operators</h1>
      <p className="lede">
        Logged in as {me.display_name} ({me.username})
        {me.provider_role ? `, provider ${me.provider_role} of every operator` : ''}.
      </p>
      <TableOr
        empty="Your account holds no role on any operator yet. Ask a provider admin."
        caption="Operators you can open"
        rows={me.operators}
        rowKey={(o) => o.operator_id}
        columns={[
          {
            head: 'Operator',
            cell: (o) => <Link href={`/o/${encodeURIComponent(o.operator_id)}`}>{o.operator_id}</Link>,
          },
          { head: 'Name', cell: (o) => o.name },
          { head: 'Status', cell: (o) => o.status },
          { head: 'Your role', cell: (o) => o.role },
        ]}
      />
      <form method="post" action="/auth/logout">
        <button type="submit" className="secondary">
          Log out
        </button>
      </form>
    </main>
  );
}
