import type { StaffInvoice, StaffInvoiceView } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { PrintButton } from '../../../../../components/print-button';
import { DataTable } from '../../../../../components/table';
import { Facts, Problem } from '../../../../../components/ui';
import { load, operatorParam, seg } from '../../../../../lib/api';
import { money, percentOf, when } from '../../../../../lib/format';
import { billed, InvoiceLink, InvoiceState } from '../state';

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
    <DataTable
      testId="credit-notes"
      caption="Credit notes against this invoice"
      rows={notes}
      rowKey={(n) => n.invoice_id ?? ''}
      rowAttrs={(n) => ({ 'data-invoice': n.invoice_id ?? '' })}
      columns={[
        {
          head: 'Number',
          rowHeader: true,
          cell: (n) => <InvoiceLink operator={operator} id={n.invoice_id} />,
        },
        { head: 'Reason', cell: (n) => n.reason },
        billed('Amount', 'amount_due_minor'),
        { head: 'Issued', cell: (n) => when(n.issued_at) },
      ]}
    />
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
          Reverses invoice <InvoiceLink operator={operator} id={inv.credits_invoice_id} />: {inv.reason}
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
      <DataTable
        testId="invoice-lines"
        caption="Invoice lines"
        rows={inv.lines}
        rowKey={(l) => String(l.line_no)}
        rowAttrs={(l) => ({
          'data-line': String(l.line_no),
          'data-currency': l.currency,
          'data-group': l.title_group,
        })}
        emptyRow="No activity in the month."
        columns={[
          { head: '#', rowHeader: true, cell: (l) => l.line_no },
          { head: 'Currency', cell: (l) => l.currency },
          {
            head: 'Title group',
            cell: (l) => (
              <>
                {l.title_group}
                <div className="hint">{l.titles.join(', ')}</div>
              </>
            ),
          },
          { head: 'Rounds', num: true, cell: (l) => l.rounds },
          {
            head: 'GGR',
            num: true,
            attrs: (l) => ({ 'data-field': 'ggr', 'data-minor': l.ggr_minor }),
            cell: (l) => money(l.ggr_minor, l.currency),
          },
          {
            head: 'Rate',
            tdClass: 'nowrap',
            attrs: (l) => ({ 'data-field': 'rate', 'data-rate': l.rate }),
            cell: (l) => (
              <>
                {rateText(l, cur)}
                <div className="hint">{DIRECTION[l.rate_direction] ?? l.rate_direction}</div>
              </>
            ),
          },
          {
            head: 'Rate date',
            tdClass: 'nowrap',
            attrs: () => ({ 'data-field': 'rate-date' }),
            cell: (l) => l.rate_date,
          },
          {
            head: 'Rate source',
            tdClass: 'nowrap',
            attrs: () => ({ 'data-field': 'rate-source' }),
            cell: (l) => l.rate_source,
          },
          {
            head: <>GGR ({cur})</>,
            num: true,
            attrs: (l) => ({ 'data-field': 'ggr-billing', 'data-minor': l.ggr_billing_minor }),
            cell: (l) => money(l.ggr_billing_minor, cur),
          },
          {
            head: 'Round set',
            attrs: () => ({ 'data-field': 'round-set' }),
            cell: (l) => (
              <>
                <code className="hash">{l.round_set_hash}</code>
                <div className="hint">
                  {l.round_set_size} {l.round_set_size === 1 ? 'round' : 'rounds'}
                </div>
              </>
            ),
          },
        ]}
      />
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
