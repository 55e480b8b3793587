import { cancelAuditId, recordId, staffAction } from '../../../../../../lib/actions';

/** POST /o/{operator}/free-rounds/{campaign}/cancel: an admin's cancel of a campaign (the API decides). */
export async function POST(req: Request, ctx: { params: Promise<{ operator: string; campaign: string }> }) {
  const { operator, campaign } = await ctx.params;
  const id = encodeURIComponent(campaign);
  return staffAction(req, operator, {
    idsValid: recordId(campaign),
    page: `/o/${operator}/free-rounds/${id}`,
    call: (form) => {
      const reason = String(form.get('reason') ?? '').trim();
      return { path: `/operators/${operator}/free-rounds/${id}/cancel`, body: reason ? { reason } : {} };
    },
    param: 'action',
    auditId: cancelAuditId,
  });
}
