import { csvDownload } from '../../../../../lib/csv';
import { utcInput } from '../../../../../lib/format';

/** GET /o/{operator}/reconciliation/csv: the API's reconciliation CSV for the chosen window, as a download. */
export function GET(req: Request, ctx: { params: Promise<{ operator: string }> }) {
  return csvDownload(req, ctx, {
    path: '/reconciliation.csv',
    query: (p) => {
      const q = new URLSearchParams();
      const from = utcInput(p.get('from') ?? undefined);
      const to = utcInput(p.get('to') ?? undefined);
      const currency = p.get('currency');
      if (from) q.set('from', from);
      if (to) q.set('to', to);
      if (currency && /^[A-Z]{3}$/.test(currency)) q.set('currency', currency);
      return q;
    },
    filename: (operator) => `reconciliation-${operator}.csv`,
  });
}
