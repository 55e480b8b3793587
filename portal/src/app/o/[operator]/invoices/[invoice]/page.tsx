import type { StaffInvoice, StaffInvoiceView } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { PrintButton } from '../../../../../components/print-button';
import { Facts, Problem } from '../../../../../components/ui';
import { load, operatorParam, seg } from '../../../../../lib/api';
import { money, percentOf, when } from '../../../../../lib/format';
import { InvoiceState } from '../state';

export const metadata: Metadata = { title: 'Invoice' };

const DIRECTION: Record<string, string> = {
  direct: 'direct',
  inverse: 'inverse (divided by)',
  identity: 'none (billing currency)',
};

/** The rate in words: "1 EUR = 0.85 GBP", or for an inverse rate "1 GBP = 1.25 USD". */
function rateText(line: StaffInvoice['lines'][number], billing: string): string {
  if (line.rate_direction === 'identity') return '—';
  return line.rate_direction === 'direct'
    ? `1 ${line.currency} = ${line.rate} ${billing}`
    : `1 ${billing} = ${line.rate} ${line.currency}`;
}

function CreditNotes({ operator, notes }: { operator: string; notes: StaffInvoice[] }) {
  return (
    <div className="table-wrap">
      <table data-testid="credit-notes">
        <caption>Credit notes against this invoice</caption>
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Reason</th>
            <th scope="col" className="num">
              Amount
            </th>
            <th scope="col">Issued</th>
          </tr>
        </thead>
        <tbody>
          {notes.map((n) => (
            <tr key={n.invoice_id} data-invoice={n.invoice_id ?? ''}>
              <th scope="row">
                <Link href={`/o/${operator}/invoices/${encodeURIComponent(n.invoice_id ?? '')}`}>
                  {n.invoice_id}
                </Link>
              </th>
              <td>{n.reason}</td>
              <td className="num" data-minor={n.amount_due_minor}>
                {money(n.amount_due_minor, n.billing_currency)}
              </td>
              <td>{when(n.issued_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default async function InvoicePage({
  params,
}: {
  params: Promise<{ operator: string; invoice: string }>;
}) {
  const operator = await operatorParam(params);
  const { invoice } = await params;
  const view = await load<StaffInvoiceView>(`/operators/${operator}/invoices/${seg(invoice)}`);
  if (!view.ok) return <Problem {...view} />;
  const inv = view.data.invoice;
  const notes = view.data.credit_notes;
  const cur = inv.billing_currency;
  const isNote = inv.kind === 'credit_note';
  return (
    <article className="invoice" data-testid="invoice" data-invoice={inv.invoice_id ?? ''}>
      <p className="no-print">
        <Link href={`/o/${operator}/invoices`}>← Invoices</Link>{' '}
        <Link href={`/o/${operator}/reports?from=${inv.period_start}&to=${inv.period_end}`}>
          The month&apos;s report
        </Link>{' '}
        <PrintButton />
      </p>
      <h1>
        {isNote ? 'Credit note' : 'Invoice'} {inv.invoice_id}
      </h1>
      <p>
        <InvoiceState inv={inv} />
      </p>
      {isNote ? (
        <p className="notice warn" data-testid="reverses">
          Reverses invoice{' '}
          <Link href={`/o/${operator}/invoices/${encodeURIComponent(inv.credits_invoice_id ?? '')}`}>
            {inv.credits_invoice_id}
          </Link>
          : {inv.reason}
        </p>
      ) : null}
      {!isNote && notes.length > 0 ? (
        <p className="notice bad" data-testid="credited">
          Reversed by credit note {notes.map((n) => n.invoice_id).join(', ')}. This invoice stays exactly as
          issued.
        </p>
      ) : null}
      <Facts
        items={[
          ['Operator', inv.operator_id],
          ['Month', `${inv.period} (${inv.period_start} to ${inv.period_end}, ${inv.time_zone})`],
          ['Billing currency', cur],
          ['Definition', inv.definition_version],
          ['Issued', `${when(inv.issued_at)}${inv.issued_by ? ` by ${inv.issued_by}` : ''}`],
          [
            'Contract',
            inv.contract.tiers
              .map((t) => `${percentOf(t.rate_ppm, 1_000_000)} from ${money(t.from_ggr_minor, cur)}`)
              .join('; '),
          ],
          ['Minimum fee', money(inv.contract.minimum_fee_minor, cur)],
        ]}
      />
      <h2>Lines</h2>
      <p className="hint">
        One line per currency and title group, its GGR converted at the rate in force on the month&apos;s last
        day, frozen with its date and source. The round set hash is the SHA-256 of the line&apos;s round ids,
        sorted and joined by newlines.
      </p>
      <div className="table-wrap">
        <table data-testid="invoice-lines">
          <caption>Invoice lines</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Currency</th>
              <th scope="col">Title group</th>
              <th scope="col" className="num">
                Rounds
              </th>
              <th scope="col" className="num">
                GGR
              </th>
              <th scope="col">Rate</th>
              <th scope="col">Rate date</th>
              <th scope="col">Rate source</th>
              <th scope="col" className="num">
                GGR ({cur})
              </th>
              <th scope="col">Round set</th>
            </tr>
          </thead>
          <tbody>
            {inv.lines.map((l) => (
              <tr key={l.line_no} data-line={l.line_no} data-currency={l.currency} data-group={l.title_group}>
                <th scope="row">{l.line_no}</th>
                <td>{l.currency}</td>
                <td>
                  {l.title_group}
                  <div className="hint">{l.titles.join(', ')}</div>
                </td>
                <td className="num">{l.rounds}</td>
                <td className="num" data-field="ggr" data-minor={l.ggr_minor}>
                  {money(l.ggr_minor, l.currency)}
                </td>
                <td className="nowrap" data-field="rate" data-rate={l.rate}>
                  {rateText(l, cur)}
                  <div className="hint">{DIRECTION[l.rate_direction] ?? l.rate_direction}</div>
                </td>
                <td className="nowrap" data-field="rate-date">
                  {l.rate_date}
                </td>
                <td className="nowrap" data-field="rate-source">
                  {l.rate_source}
                </td>
                <td className="num" data-field="ggr-billing" data-minor={l.ggr_billing_minor}>
                  {money(l.ggr_billing_minor, cur)}
                </td>
                <td data-field="round-set">
                  <code className="hash">{l.round_set_hash}</code>
                  <div className="hint">
                    {l.round_set_size} {l.round_set_size === 1 ? 'round' : 'rounds'}
                  </div>
                </td>
              </tr>
            ))}
            {inv.lines.length === 0 ? (
              <tr>
                <td colSpan={10}>No activity in the month.</td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      <h2>Totals</h2>
      <Facts
        items={[
          [
            'GGR',
            <span key="ggr" data-testid="total-ggr">
              {money(inv.ggr_billing_minor, cur)}
            </span>,
          ],
          [
            'Revenue share',
            <span key="share" data-testid="total-share">
              {money(inv.share_minor, cur)}
            </span>,
          ],
          ['Minimum fee', money(inv.minimum_fee_minor, cur)],
          [
            'Amount due',
            <strong key="due" data-testid="amount-due">
              {money(inv.amount_due_minor, cur)}
            </strong>,
          ],
        ]}
      />
      <p className="hint">
        Invoice hash (SHA-256 of the document&apos;s canonical JSON):{' '}
        <code className="hash">{inv.invoice_hash}</code>
      </p>
      {!isNote && notes.length > 0 ? (
        <>
          <h2>Credit notes</h2>
          <CreditNotes operator={operator} notes={notes} />
        </>
      ) : null}
    </article>
  );
}
