import type { IntegrationMode, ProviderId, ReleaseStatus } from '@opi/contract';
import type { Pool } from '@opi/db';

/** A title with everything availability needs, for one operator (or none). */
export interface CatalogRow {
  symbol: string;
  slug: string;
  title: string;
  provider_id: ProviderId;
  provider: string;
  family: string | null;
  rtp: string | null;
  integration_mode: IntegrationMode;
  installed_version: string;
  enabled: boolean;
  operator_wallet_enabled: boolean;
  metadata: Record<string, unknown>;
  release_status: ReleaseStatus | null;
  release_detail: string | null;
  release_reasons: string[] | null;
  release_evidence: string[] | null;
  deployment_identity: string | null;
  switch_on: boolean;
  assigned: boolean;
  assignment_enabled: boolean | null;
}

export interface CatalogFilter {
  operatorId: string | null;
  providerId?: string | null;
  /** A symbol or a slug. */
  symbolOrSlug?: string | null;
  /** Only titles assigned to the operator. */
  assignedOnly?: boolean;
}

/** One set-based query: titles, their registry entry for the installed version, the family switch, the assignment. */
export async function loadCatalog(pool: Pool, filter: CatalogFilter): Promise<CatalogRow[]> {
  const { rows } = await pool.query<CatalogRow>(
    `SELECT g.symbol, g.slug, g.title, g.provider_id, g.provider, g.family, g.rtp, g.integration_mode,
            g.installed_version, g.enabled, g.operator_wallet_enabled, g.metadata,
            r.status AS release_status, r.detail AS release_detail, r.reasons AS release_reasons,
            r.evidence AS release_evidence, r.deployment_identity,
            s.enabled AS switch_on,
            (og.operator_id IS NOT NULL) AS assigned, og.enabled AS assignment_enabled
     FROM games g
     JOIN provider_switches s ON s.provider_id = g.provider_id
     LEFT JOIN release_registry r ON r.symbol = g.symbol AND r.registry_version = g.installed_version
     LEFT JOIN operator_games og ON og.symbol = g.symbol AND og.operator_id = $1
     WHERE ($2::text IS NULL OR g.provider_id = $2)
       AND ($3::text IS NULL OR g.symbol = $3 OR g.slug = $3)
       AND (NOT $4::boolean OR og.operator_id IS NOT NULL)
     ORDER BY g.provider_id, g.title, g.symbol`,
    [filter.operatorId, filter.providerId ?? null, filter.symbolOrSlug ?? null, filter.assignedOnly ?? false],
  );
  return rows;
}
