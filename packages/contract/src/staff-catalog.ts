import { z } from 'zod';
import { Game } from './catalog.js';

/* The staff API's catalog readiness (`GET /api/staff/v1/operators/{operator_id}/catalog`). */

/** An assigned title with its blockers in plain words and its installed version. */
export const StaffCatalogItem = Game.extend({
  /** The blockers in plain words, in the order of `operator_availability.blockers`. */
  blocker_text: z.array(z.string()),
  installed_version: z.string(),
});
export type StaffCatalogItem = z.infer<typeof StaffCatalogItem>;

export const StaffCatalog = z.object({
  operator_id: z.string(),
  items: z.array(StaffCatalogItem),
  total: z.number().int(),
  /** Every family among the assigned titles (for the filter). */
  families: z.array(z.string()),
  launchable: z.number().int(),
  blocked: z.number().int(),
});
export type StaffCatalog = z.infer<typeof StaffCatalog>;
