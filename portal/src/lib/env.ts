import { z } from 'zod';

/**
 * The portal's environment, parsed once (the portal is its own process; the platform's variables
 * live in packages/config). Read on the server only.
 */
const PortalEnv = z.object({
  /** The API the portal reads through (its /api/staff/v1 routes). */
  OPI_API_URL: z.url().default('http://127.0.0.1:8080'),
  /** Shared with the API (STAFF_PORTAL_SECRET there): lets the API believe the forwarded client address. */
  STAFF_PORTAL_SECRET: z.string().min(32).optional(),
  /**
   * The portal's public origin (https://staff.example.com). POSTs must come from it (CSRF), and an
   * https origin makes the session cookie `__Host-` and Secure. Without it, the request's own host.
   */
  PORTAL_PUBLIC_URL: z.url().optional(),
  /**
   * Proxies in front of the portal whose X-Forwarded-For is believed (addresses or CIDRs; empty by
   * default: the socket's peer is the browser). Read by portal/server.mjs before Next sees the
   * request; it fails to start on a bad entry.
   */
  TRUSTED_PROXIES: z.string().optional(),
});

let parsed: z.infer<typeof PortalEnv> | undefined;

export function env(): z.infer<typeof PortalEnv> {
  if (!parsed) {
    const result = PortalEnv.safeParse(process.env);
    if (!result.success) {
      const lines = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      throw new Error(`portal configuration: ${lines.join('; ')}`);
    }
    parsed = result.data;
  }
  return parsed;
}
