import { csvDownload } from '../../../../../lib/csv';

const GROUPS = ['day_title_currency', 'day', 'title', 'currency'];

/**
 * GET /o/{operator}/reports/csv: the API's revenue report CSV (the operator API's own, byte for byte)
 * for the chosen period, currency and grouping, as a download.
 */
export function GET(req: Request, ctx: { params: Promise<{ operator: string }> }) {
  return csvDownload(req, ctx, {
    path: '/reports/revenue.csv',
    // The API checks the values (422 with the field); only the known parameters are passed on.
    query: (p) => {
      const q = new URLSearchParams({ from: p.get('from') ?? '', to: p.get('to') ?? '' });
      const currency = p.get('currency');
      const group = p.get('group_by');
      if (currency) q.set('currency', currency);
      if (group && GROUPS.includes(group)) q.set('group_by', group);
      return q;
    },
    filename: (operator) => `revenue-${operator}.csv`,
    apiName: true,
  });
}
