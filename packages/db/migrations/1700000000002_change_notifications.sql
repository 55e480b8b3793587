-- Up Migration
-- Every API process caches the catalog, operators and keys in memory and drops those caches when
-- any of these tables changes, whoever changed it (admin API, CLI, SQL): one NOTIFY per statement.
CREATE FUNCTION notify_config_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('opi_config_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER operators_changed AFTER INSERT OR UPDATE OR DELETE ON operators
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER games_changed AFTER INSERT OR UPDATE OR DELETE ON games
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER release_registry_changed AFTER INSERT OR UPDATE OR DELETE ON release_registry
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER operator_games_changed AFTER INSERT OR UPDATE OR DELETE ON operator_games
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER provider_switches_changed AFTER INSERT OR UPDATE OR DELETE ON provider_switches
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();

-- Down Migration
DROP TRIGGER provider_switches_changed ON provider_switches;
DROP TRIGGER operator_games_changed ON operator_games;
DROP TRIGGER release_registry_changed ON release_registry;
DROP TRIGGER games_changed ON games;
DROP TRIGGER api_keys_changed ON api_keys;
DROP TRIGGER operators_changed ON operators;
DROP FUNCTION notify_config_change();
