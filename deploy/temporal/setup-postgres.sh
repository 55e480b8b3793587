#!/bin/sh
# Creates (or upgrades) Temporal's two databases on the shared PostgreSQL with temporal-sql-tool
# (temporalio/admin-tools), from the schema the tool embeds: the same steps as the native cluster
# stack's setupTemporalSchema (tools/devstack/src/temporal-cluster.ts). Idempotent: an existing
# database or schema is kept and brought up to the tool's schema version.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
PORT="${DB_PORT:-5432}"
until nc -z -w 5 "$POSTGRES_SEEDS" "$PORT"; do echo 'waiting for PostgreSQL'; sleep 2; done
tool() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$PORT" "$@"; }
for db in temporal temporal_visibility; do
  tool --db "$db" create-database || echo "database $db exists"
  tool --db "$db" setup-schema -v 0.0 || echo "schema of $db exists"
done
tool --db temporal update-schema --schema-name postgresql/v12/temporal
tool --db temporal_visibility update-schema --schema-name postgresql/v12/visibility
echo 'Temporal schema ready'
