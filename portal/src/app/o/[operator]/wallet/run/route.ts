import { staffAction } from '../../../../../lib/actions';

/**
 * POST /o/{operator}/wallet/run: runs the go-live wallet checks at the API (which holds the wallet
 * secret) and shows the stored run.
 */
export async function POST(req: Request, ctx: { params: Promise<{ operator: string }> }) {
  const { operator } = await ctx.params;
  return staffAction(req, operator, {
    page: `/o/${operator}/wallet`,
    call: (form) => ({
      path: `/operators/${operator}/wallet-diagnostics`,
      body: {
        player_id: String(form.get('player_id') ?? '').trim(),
        currency: String(form.get('currency') ?? ''),
      },
    }),
    param: 'run',
    auditId: (data) => String(data.audit_id),
  });
}
