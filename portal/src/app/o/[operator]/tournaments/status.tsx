import { Badge, type Tone } from '../../../../components/ui';

const TONE: Record<string, Tone> = {
  scheduled: 'warn',
  running: 'ok',
  active: 'ok',
  ended: 'neutral',
  paid: 'ok',
  pending: 'warn',
  cancelled: 'neutral',
  forfeited: 'neutral',
};

/** A tournament's, a prize drop's or a payout's status in words. */
export function PromoStatus({ status }: { status: string }) {
  return <Badge tone={TONE[status] ?? 'neutral'}>{status}</Badge>;
}

export const SCORING_TEXT: Record<string, string> = {
  max_multiplier: 'best single-round multiplier',
  total_win: 'total win',
};
