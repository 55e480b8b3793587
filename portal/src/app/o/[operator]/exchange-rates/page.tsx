import type { StaffUsedRates } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Problem } from '../../../../components/ui';
import { load, operatorParam } from '../../../../lib/api';

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
      {items.length === 0 ? (
        <p className="notice warn" data-testid="no-rates">
          No invoice has used an exchange rate yet.
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="rates">
            <caption>Rates used by invoices, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Pair</th>
                <th scope="col">Rate</th>
                <th scope="col">Date</th>
                <th scope="col">Source</th>
                <th scope="col">Used by</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr
                  key={`${r.currency}-${r.rate_date}-${r.rate_source}-${r.rate}-${r.rate_direction}`}
                  data-currency={r.currency}
                  data-rate={r.rate}
                  data-source={r.rate_source}
                >
                  <th scope="row">
                    {r.currency} → {r.billing_currency}
                  </th>
                  <td>
                    {r.rate_direction === 'direct'
                      ? `1 ${r.currency} = ${r.rate} ${r.billing_currency}`
                      : `1 ${r.billing_currency} = ${r.rate} ${r.currency}`}
                    <div className="hint">
                      {r.rate_direction === 'direct'
                        ? 'direct'
                        : 'inverse: loaded the other way round, divided by'}
                    </div>
                  </td>
                  <td>{r.rate_date}</td>
                  <td>{r.rate_source}</td>
                  <td>
                    <ul className="plain">
                      {r.invoice_ids.map((id) => (
                        <li key={id}>
                          <Link href={`/o/${operator}/invoices/${encodeURIComponent(id)}`}>{id}</Link>
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
