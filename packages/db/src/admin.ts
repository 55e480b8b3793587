import pg from 'pg';

/** Replaces the database name of a connection string. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates `name` unless it exists (optionally from a template). Names are validated, not quoted blindly. */
export async function ensureDatabase(serverUrl: string, name: string, template?: string): Promise<void> {
  const ident = /^[a-z_][a-z0-9_]{0,62}$/;
  if (!ident.test(name) || (template && !ident.test(template))) throw new Error(`bad database name ${name}`);
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await client.end();
  }
}
