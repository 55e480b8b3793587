import { cancelAuditId, staffAction } from '../../../../../../lib/actions';

/** POST /o/{operator}/tournaments/{tournament}/cancel: a provider admin's cancel (the API decides). */
export async function POST(req: Request, ctx: { params: Promise<{ operator: string; tournament: string }> }) {
  const { operator, tournament } = await ctx.params;
  return staffAction(req, operator, {
    idsValid: /^[a-z0-9][a-z0-9_-]{0,62}$/.test(tournament),
    page: `/o/${operator}/tournaments/${tournament}`,
    call: (form) => {
      const reason = String(form.get('reason') ?? '').trim();
      return {
        path: `/operators/${operator}/tournaments/${tournament}/cancel`,
        body: reason ? { reason } : {},
      };
    },
    param: 'action',
    auditId: cancelAuditId,
  });
}
