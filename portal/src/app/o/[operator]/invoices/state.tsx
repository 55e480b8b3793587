import type { StaffInvoice } from '@opi/contract';
import { Badge } from '../../../../components/ui';

/** What an invoice is now: issued, reversed by a credit note, or a credit note. */
export function InvoiceState({ inv }: { inv: StaffInvoice }) {
  if (inv.kind === 'credit_note') return <Badge tone="warn">credit note</Badge>;
  if (inv.credited) return <Badge tone="bad">credited</Badge>;
  return <Badge tone="ok">issued</Badge>;
}
