import { type Pool, withTransaction } from '@opi/db';
import { CATALOG, type CatalogEntry, launchPathFor } from '@opi/games';

/**
 * Installs the catalog: titles (static facts refreshed on every start; the admin-controlled
 * flags `enabled` and `operator_wallet_enabled` are set only when a title is first installed)
 * and the release registry entry of each installed version (never overwritten: staff decisions
 * stand). Idempotent.
 */
export async function seedCatalog(pool: Pool, entries: readonly CatalogEntry[] = CATALOG): Promise<number> {
  await withTransaction(pool, async (c) => {
    for (const e of entries) {
      const metadata = {
        features: e.features,
        special_bet_profile: e.special_bet_profile,
        lines: e.lines,
        asset_version: e.asset_version,
        asset_symbol: e.asset_symbol,
        asset_source: e.asset_source,
        has_local_assets: e.has_local_assets,
        game_service_version: e.game_service_version,
        loader_mode: e.loader_mode,
        provider_tagline: e.provider_tagline,
        shell_strategy: e.shell_strategy,
        launch_status: e.launch_status,
        live_catalog_enabled: e.live_catalog_enabled,
        certified_browsers: e.certified_browsers,
        crash_currencies: e.crash_currencies ?? null,
        launch_path: launchPathFor(e),
      };
      await c.query(
        `INSERT INTO games (symbol, slug, title, provider_id, provider, family, rtp, integration_mode, installed_version,
                            enabled, operator_wallet_enabled, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10, $11)
         ON CONFLICT (symbol) DO UPDATE SET slug = EXCLUDED.slug, title = EXCLUDED.title, provider = EXCLUDED.provider,
           family = EXCLUDED.family, rtp = EXCLUDED.rtp, integration_mode = EXCLUDED.integration_mode,
           installed_version = EXCLUDED.installed_version, metadata = EXCLUDED.metadata, updated_at = now()`,
        [
          e.symbol,
          e.slug,
          e.title,
          e.provider_id,
          e.provider,
          e.family,
          e.rtp,
          e.integration_mode,
          e.installed_version,
          e.operator_wallet_default,
          JSON.stringify(metadata),
        ],
      );
      await c.query(
        `INSERT INTO release_registry (symbol, registry_version, status, detail, reasons, evidence, deployment_identity)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (symbol, registry_version) DO NOTHING`,
        [
          e.symbol,
          e.installed_version,
          e.release.status,
          e.release.detail,
          e.release.reasons,
          e.release.evidence,
          e.release.deployment_identity,
        ],
      );
    }
  });
  return entries.length;
}

/** Assigns every installed title to an operator (the demo operator of the default stack). */
export async function assignAllTitles(pool: Pool, operatorId: string): Promise<void> {
  await pool.query(
    `INSERT INTO operator_games (operator_id, symbol, enabled)
     SELECT $1, symbol, true FROM games ON CONFLICT (operator_id, symbol) DO NOTHING`,
    [operatorId],
  );
}
