#!/bin/sh
# Creates (or upgrades) Temporal's two databases on the shared PostgreSQL with temporal-sql-tool
# (temporalio/admin-tools). Idempotent: an existing database or schema is kept and brought up to
# the image's schema version.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
PORT="${DB_PORT:-5432}"
until nc -z -w 5 "$POSTGRES_SEEDS" "$PORT"; do echo 'waiting for PostgreSQL'; sleep 2; done
tool() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$PORT" "$@"; }
for db in temporal temporal_visibility; do
  tool --db "$db" create || echo "database $db exists"
  tool --db "$db" setup-schema -v 0.0 || echo "schema of $db exists"
done
tool --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
tool --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned
echo 'Temporal schema ready'
