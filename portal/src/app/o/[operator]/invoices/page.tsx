import type { StaffInvoiceList } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Field, Problem } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import { InvoiceState } from './state';

export const metadata: Metadata = { title: 'Invoices' };

export default async function InvoicesPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const period = sp.period && /^\d{4}-\d{2}$/.test(sp.period) ? sp.period : undefined;
  const list = await load<StaffInvoiceList>(`/operators/${operator}/invoices${qs({ period })}`);
  if (!list.ok) return <Problem {...list} />;
  const items = list.data.items;
  return (
    <>
      <h1>Invoices</h1>
      <p className="lede">
        Monthly revenue-share invoices and the credit notes that reverse them, newest month first. An issued
        invoice never changes: a correction is a credit note, and the month is invoiced again.
      </p>
      <form className="filters" method="get" aria-label="Invoice month">
        <Field id="period" label="Month">
          <input id="period" name="period" type="month" defaultValue={period ?? ''} />
        </Field>
        <button type="submit">Show</button>
        {period ? (
          <Link href={`/o/${operator}/invoices`} className="button secondary">
            Every month
          </Link>
        ) : null}
      </form>
      {items.length === 0 ? (
        <p className="notice warn" data-testid="no-invoices">
          No invoices{period ? ` for ${period}` : ''} yet.
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="invoices">
            <caption>Invoices and credit notes</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Month</th>
                <th scope="col">State</th>
                <th scope="col" className="num">
                  GGR
                </th>
                <th scope="col" className="num">
                  Share
                </th>
                <th scope="col" className="num">
                  Amount due
                </th>
                <th scope="col">Issued</th>
              </tr>
            </thead>
            <tbody>
              {items.map((inv) => (
                <tr key={inv.invoice_id} data-invoice={inv.invoice_id ?? ''}>
                  <th scope="row">
                    <Link href={`/o/${operator}/invoices/${encodeURIComponent(inv.invoice_id ?? '')}`}>
                      {inv.invoice_id}
                    </Link>
                    {inv.credits_invoice_id ? (
                      <div className="hint">reverses {inv.credits_invoice_id}</div>
                    ) : null}
                  </th>
                  <td>{inv.period}</td>
                  <td>
                    <InvoiceState inv={inv} />
                  </td>
                  <td className="num" data-minor={inv.ggr_billing_minor}>
                    {money(inv.ggr_billing_minor, inv.billing_currency)}
                  </td>
                  <td className="num" data-minor={inv.share_minor}>
                    {money(inv.share_minor, inv.billing_currency)}
                  </td>
                  <td className="num" data-minor={inv.amount_due_minor} data-field="amount_due">
                    {money(inv.amount_due_minor, inv.billing_currency)}
                  </td>
                  <td>{when(inv.issued_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="hint">
        The rates these invoices used: <Link href={`/o/${operator}/exchange-rates`}>exchange rates</Link>.
      </p>
    </>
  );
}
