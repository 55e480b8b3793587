import { NextResponse } from 'next/server';
import { detailOf, staffApi } from '../../../../../lib/api';
import { clientIp } from '../../../../../lib/client-ip';
import { sameOrigin } from '../../../../../lib/csrf';
import { utcInput } from '../../../../../lib/format';
import { toMinor } from '../../../../../lib/minor';
import { portalOrigin, sessionToken } from '../../../../../lib/session';

/**
 * POST /o/{operator}/tournaments/create: a provider admin's new tournament (the API decides who may;
 * operator staff get its 403 back as the page's error). Amounts are typed in currency units and sent
 * as minor units; the window's datetime-local values are UTC.
 */
export async function POST(req: Request, ctx: { params: Promise<{ operator: string }> }) {
  if (!sameOrigin(req)) return new NextResponse('Cross-site request refused', { status: 403 });
  const { operator } = await ctx.params;
  const origin = portalOrigin(req.headers);
  const token = await sessionToken();
  if (!token) return NextResponse.redirect(new URL('/login', origin), 303);
  if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator)) return new NextResponse('Not found', { status: 404 });
  const list = `/o/${operator}/tournaments`;
  const fail = (message: string) =>
    NextResponse.redirect(
      new URL(`${list}?error=${encodeURIComponent(message.slice(0, 300))}#create`, origin),
      303,
    );
  const form = await req.formData();
  const text = (name: string) => String(form.get(name) ?? '').trim();
  const id = text('tournament_id');
  const currency = text('currency');
  if (!/^[A-Z]{3}$/.test(currency)) return fail('choose a currency');
  const minStake = toMinor(text('min_stake'), currency);
  if (minStake === null || minStake === '0')
    return fail(`the minimum stake is not an amount of ${currency} above zero`);
  const prizes = text('prizes')
    .split(/[;\s]+|,(?=\s)/)
    .map((p) => p.trim())
    .filter(Boolean);
  const prizeMinor = prizes.map((p) => toMinor(p, currency));
  if (prizes.length === 0 || prizeMinor.some((p) => p === null || p === '0'))
    return fail(`the prizes must be amounts of ${currency} above zero, separated by commas`);
  const startsAt = utcInput(text('starts_at'));
  const endsAt = utcInput(text('ends_at'));
  if (!startsAt || !endsAt) return fail('the start and the end must be dates and times');
  const titles = form.getAll('titles').map(String);
  if (titles.length === 0) return fail('choose at least one title');
  const res = await staffApi(`/operators/${operator}/tournaments`, {
    method: 'POST',
    token,
    body: {
      tournament_id: id,
      name: text('name'),
      scoring: text('scoring'),
      starts_at: startsAt,
      ends_at: endsAt,
      titles,
      currencies: { [currency]: { min_stake_minor: minStake, prizes: prizeMinor } },
    },
    clientIp: clientIp(req.headers),
  });
  if (res.status === 401) return NextResponse.redirect(new URL('/login?expired=1', origin), 303);
  const json = (await res.json().catch(() => undefined)) as
    | { data?: { audit: { audit_id: string } } }
    | undefined;
  if (!res.ok || !json?.data) return fail(detailOf(json, res.status));
  return NextResponse.redirect(
    new URL(`${list}/${encodeURIComponent(id)}?action=${json.data.audit.audit_id}`, origin),
    303,
  );
}
