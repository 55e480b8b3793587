import type { StaffCatalog, StaffCatalogItem, StaffCatalogQuery } from '@opi/contract';
import type { OperatorRow } from '../auth/operator-scope.js';
import { BLOCKER_TEXT } from '../catalog/availability.js';
import { presentGame } from '../catalog/present.js';
import { loadCatalog } from '../catalog/repository.js';
import type { ApiDeps } from '../deps.js';

/**
 * Catalog readiness for staff: every title assigned to the operator, blocked ones included, with
 * its availability, blockers in plain words, release readiness and feature flags (the same rows
 * and presentation as the operator catalog and the admin assignment view).
 */
export async function staffCatalog(
  deps: ApiDeps,
  operator: OperatorRow,
  q: StaffCatalogQuery,
): Promise<StaffCatalog> {
  const rows = await loadCatalog(deps.pool, { operatorId: operator.operator_id, assignedOnly: true });
  const present = { publicBaseUrl: deps.publicBaseUrl, operator, isProduction: deps.isProduction };
  const all: StaffCatalogItem[] = rows.map((row) => {
    const game = presentGame(row, present);
    return {
      ...game,
      installed_version: row.installed_version,
      blocker_text: (game.operator_availability?.blockers ?? []).map((b) => BLOCKER_TEXT[b]),
    };
  });
  const items = all.filter(
    (g) =>
      (!q.provider_id || g.provider_id === q.provider_id) &&
      (!q.family || g.family === q.family) &&
      (!q.status || (q.status === 'launchable') === Boolean(g.operator_availability?.launch_available)),
  );
  return {
    operator_id: operator.operator_id,
    items,
    total: items.length,
    /** Every family among the assigned titles (for the filter). */
    families: [...new Set(all.map((g) => g.family).filter((f): f is string => Boolean(f)))].sort(),
    launchable: all.filter((g) => g.operator_availability?.launch_available).length,
    blocked: all.filter((g) => !g.operator_availability?.launch_available).length,
  };
}
