import { cancelAuditId, recordId, staffAction } from '../../../../../lib/actions';

/** POST /o/{operator}/stuck/cancel: the staff cancel of a stuck round (admin; the API decides). */
export async function POST(req: Request, ctx: { params: Promise<{ operator: string }> }) {
  const { operator } = await ctx.params;
  return staffAction(req, operator, {
    page: `/o/${operator}/stuck`,
    call: (form) => {
      const roundId = String(form.get('round_id') ?? '');
      const reason = String(form.get('reason') ?? '').trim();
      if (!recordId(roundId)) return { error: 'round' };
      return {
        path: `/operators/${operator}/rounds/${encodeURIComponent(roundId)}/cancel`,
        body: { reason },
      };
    },
    param: 'action',
    auditId: cancelAuditId,
  });
}
