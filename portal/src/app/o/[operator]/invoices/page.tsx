import type { StaffInvoiceList } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { FilterForm, TextFilter } from '../../../../components/filters';
import { TableOr } from '../../../../components/table';
import { Problem } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { when } from '../../../../lib/format';
import { billed, InvoiceLink, InvoiceState } from './state';

export const metadata: Metadata = { title: 'Invoices' };

export default async function InvoicesPage({ params, searchParams }: OperatorPageProps) {
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
      <FilterForm
        label="Invoice month"
        submit="Show"
        after={
          period ? (
            <Link href={`/o/${operator}/invoices`} className="button secondary">
              Every month
            </Link>
          ) : null
        }
      >
        <TextFilter name="period" label="Month" type="month" value={period} />
      </FilterForm>
      <TableOr
        empty={<>No invoices{period ? ` for ${period}` : ''} yet.</>}
        emptyTestId="no-invoices"
        testId="invoices"
        caption="Invoices and credit notes"
        rows={items}
        rowKey={(inv) => inv.invoice_id ?? ''}
        rowAttrs={(inv) => ({ 'data-invoice': inv.invoice_id ?? '' })}
        columns={[
          {
            head: 'Number',
            rowHeader: true,
            cell: (inv) => (
              <>
                <InvoiceLink operator={operator} id={inv.invoice_id} />
                {inv.credits_invoice_id ? (
                  <div className="hint">reverses {inv.credits_invoice_id}</div>
                ) : null}
              </>
            ),
          },
          { head: 'Month', cell: (inv) => inv.period },
          { head: 'State', cell: (inv) => <InvoiceState inv={inv} /> },
          billed('GGR', 'ggr_billing_minor'),
          billed('Share', 'share_minor'),
          billed('Amount due', 'amount_due_minor', { 'data-field': 'amount_due' }),
          { head: 'Issued', cell: (inv) => when(inv.issued_at) },
        ]}
      />
      <p className="hint">
        The rates these invoices used: <Link href={`/o/${operator}/exchange-rates`}>exchange rates</Link>.
      </p>
    </>
  );
}
