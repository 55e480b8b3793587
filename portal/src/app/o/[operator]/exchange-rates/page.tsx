import type { StaffUsedRates } from '@opi/contract';
import type { Metadata } from 'next';
import { TableOr } from '../../../../components/table';
import { Problem } from '../../../../components/ui';
import { load, operatorParam } from '../../../../lib/api';
import { InvoiceLink } from '../invoices/state';

export const metadata: Metadata = { title: 'Exchange rates' };

export default async function ExchangeRatesPage({ params }: { params: Promise<{ operator: string }> }) {
  const operator = await operatorParam(params);
  const rates = await load<StaffUsedRates>(`/operators/${operator}/exchange-rates`);
  if (!rates.ok) return <Problem {...rates} />;
  const items = rates.data.items;
  return (
    <>
      <h1>Exchange rates</h1>
      <p className="lede">
        The rates the operator&apos;s invoices used, as each invoice froze them: rate, date and source.
        Read-only: the provider&apos;s admins load exchange rates; a rate never changes once loaded.
      </p>
      <TableOr
        empty="No invoice has used an exchange rate yet."
        emptyTestId="no-rates"
        testId="rates"
        caption="Rates used by invoices, newest first"
        rows={items}
        rowKey={(r) => `${r.currency}-${r.rate_date}-${r.rate_source}-${r.rate}-${r.rate_direction}`}
        rowAttrs={(r) => ({ 'data-currency': r.currency, 'data-rate': r.rate, 'data-source': r.rate_source })}
        columns={[
          {
            head: 'Pair',
            rowHeader: true,
            cell: (r) => (
              <>
                {r.currency} → {r.billing_currency}
              </>
            ),
          },
          {
            head: 'Rate',
            cell: (r) => (
              <>
                {r.rate_direction === 'direct'
                  ? `1 ${r.currency} = ${r.rate} ${r.billing_currency}`
                  : `1 ${r.billing_currency} = ${r.rate} ${r.currency}`}
                <div className="hint">
                  {r.rate_direction === 'direct'
                    ? 'direct'
                    : 'inverse: loaded the other way round, divided by'}
                </div>
              </>
            ),
          },
          { head: 'Date', cell: (r) => r.rate_date },
          { head: 'Source', cell: (r) => r.rate_source },
          {
            head: 'Used by',
            cell: (r) => (
              <ul className="plain">
                {r.invoice_ids.map((id) => (
                  <li key={id}>
                    <InvoiceLink operator={operator} id={id} />
                  </li>
                ))}
              </ul>
            ),
          },
        ]}
      />
    </>
  );
}
