import Link from 'next/link';
import type { ReactNode } from 'react';
import { Nav } from '../../../components/nav';
import { loadMe, operatorParam } from '../../../lib/api';

/** Every operator page: who is logged in, the operator picker, the sections, log out. */
export default async function OperatorLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ operator: string }>;
}) {
  const operatorId = await operatorParam(params);
  const me = await loadMe();
  const mine = me.operators.find((o) => o.operator_id === operatorId);
  return (
    <>
      <header className="top">
        <Link className="brand" href="/">
          Staff portal
        </Link>
        <form method="get" action="/" className="picker">
          <label htmlFor="operator-picker">Operator</label>
          <select id="operator-picker" name="operator" defaultValue={operatorId}>
            {mine ? null : <option value={operatorId}>{operatorId}</option>}
            {me.operators.map((o) => (
              <option key={o.operator_id} value={o.operator_id}>
                {o.name} ({o.operator_id})
              </option>
            ))}
          </select>
          <button type="submit" className="secondary">
            Open
          </button>
        </form>
        <span className="who" data-testid="who">
          {me.display_name} · {mine?.role ?? 'no role'}
        </span>
        <form method="post" action="/auth/logout">
          <button type="submit" className="secondary" data-testid="logout">
            Log out
          </button>
        </form>
      </header>
      <Nav operatorId={operatorId} />
      <main id="main">{children}</main>
    </>
  );
}
