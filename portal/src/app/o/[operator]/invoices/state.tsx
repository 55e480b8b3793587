import type { StaffInvoice } from '@opi/contract';
import Link from 'next/link';
import type { Column } from '../../../../components/table';
import { Badge } from '../../../../components/ui';
import { money } from '../../../../lib/format';

/** What an invoice is now: issued, reversed by a credit note, or a credit note. */
export function InvoiceState({ inv }: { inv: StaffInvoice }) {
  if (inv.kind === 'credit_note') return <Badge tone="warn">credit note</Badge>;
  if (inv.credited) return <Badge tone="bad">credited</Badge>;
  return <Badge tone="ok">issued</Badge>;
}

/** An invoice's number, linking to its page under the operator. */
export function InvoiceLink({ operator, id }: { operator: string; id: string | null }) {
  return <Link href={`/o/${operator}/invoices/${encodeURIComponent(id ?? '')}`}>{id}</Link>;
}

/** An amount of the invoice in its billing currency, its minor units kept for the tests (`data-minor`). */
export function billed(
  head: string,
  key: 'ggr_billing_minor' | 'share_minor' | 'amount_due_minor',
  attrs: Record<string, string> = {},
): Column<StaffInvoice> {
  return {
    head,
    num: true,
    attrs: (inv) => ({ ...attrs, 'data-minor': inv[key] }),
    cell: (inv) => money(inv[key], inv.billing_currency),
  };
}
