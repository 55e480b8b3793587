import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDatabase } from './admin.js';
import { createPool, type Pool } from './pool.js';

/**
 * Test support. The test runner (tools/devstack run-tests) starts one real PostgreSQL,
 * migrates a template database once, and exports OPI_TEST_PG_URL and OPI_TEST_TEMPLATE_DB.
 * Each test file clones the template into a database of its own, so files run in parallel
 * without sharing state.
 */
export interface TestDatabase {
  url: string;
  name: string;
  pool: Pool;
  drop(): Promise<void>;
}

export function testServerUrl(): string {
  const url = process.env.OPI_TEST_PG_URL;
  if (!url) {
    throw new Error('OPI_TEST_PG_URL is not set: run the tests through `npm test` (it starts PostgreSQL)');
  }
  return url;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const server = testServerUrl();
  const template = process.env.OPI_TEST_TEMPLATE_DB ?? 'opi_template';
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: withDatabase(server, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(server, name);
  const pool = createPool(url, { max: 10, applicationName: 'opi-test' });
  return {
    url,
    name,
    pool,
    async drop() {
      await pool.end();
      const c = new pg.Client({ connectionString: withDatabase(server, 'postgres') });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
