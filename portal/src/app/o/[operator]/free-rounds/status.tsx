import { Badge, type Tone } from '../../../../components/ui';

const TONE: Record<string, Tone> = {
  active: 'ok',
  scheduled: 'warn',
  expired: 'neutral',
  cancelled: 'neutral',
};

/** A campaign's status in words (active, scheduled, expired, cancelled). */
export function CampaignStatus({ status }: { status: string }) {
  return <Badge tone={TONE[status] ?? 'neutral'}>{status}</Badge>;
}
