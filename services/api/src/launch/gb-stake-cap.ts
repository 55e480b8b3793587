import { GB_SLOT_STAKE_CAPS, isGb, type JurisdictionRules } from '@opi/contract';
import { isSlotTitle } from '@opi/games';
import type { RuleResult } from './rules.js';

/**
 * GB slot stakes are capped per spin from a fixed per-currency table (GB_SLOT_STAKE_CAPS in
 * @opi/contract): a GB slot launch in a currency the table does not list would have no cap, so it
 * is refused (422 at body.currency) rather than played uncapped. Other families and jurisdictions pass.
 */
export function gbStakeCapKnown(rules: JurisdictionRules, family: string): RuleResult<true> {
  const slot = isSlotTitle(family);
  if (slot && isGb(rules.jurisdiction) && rules.max_stake_minor === null) {
    return {
      ok: false,
      field: 'currency',
      reason: `GB slot stakes are capped per currency: ${Object.keys(GB_SLOT_STAKE_CAPS).join(', ')} only`,
    };
  }
  return { ok: true, value: true };
}
