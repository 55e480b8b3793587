import { type Config, ConfigError, loadConfig } from '@opi/config';
import { z } from 'zod';
import { type FaultConfig, FaultConfigSchema } from './faults.js';

/**
 * The wallet sandbox's own environment variables (the platform's shared ones, such as
 * WALLET_PORT, HOST, DATABASE_URL, LOG_LEVEL and SIGNATURE_MAX_SKEW_SECONDS, come from
 * @opi/config). This schema is the only place the wallet reads them.
 */
export const WalletEnvSchema = z.object({
  /** Token of the staff API under /admin (header x-sandbox-admin-token). Unset: /admin is disabled. */
  WALLET_ADMIN_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** Fault injection for /wallet routes, JSON, e.g. {"error5xxRate":0.1,"latencyMs":[5,50],"latencyRate":1}. */
  WALLET_FAULTS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'JSON' });
        return z.NEVER;
      }
    })
    .pipe(FaultConfigSchema)
    .optional(),
  /**
   * Demo/QA mode: an unknown player is created on first sight with this opening balance (integer
   * minor units). Unset (the default): unknown players are rejected with `unknown_player`.
   */
  WALLET_AUTO_CREATE_PLAYERS_MINOR: z
    .string()
    .regex(/^[0-9]{1,18}$/, 'a non-negative integer amount in minor units')
    .transform((v) => BigInt(v))
    .optional(),
  /**
   * Testing: append a JSON line per /wallet request, on arrival (before faults and signature
   * checks), to this file — the evidence of everything a caller ever sent (src/wire-log.ts).
   */
  WALLET_WIRE_LOG: z.string().min(1).optional(),
});

export interface WalletConfig {
  platform: Config;
  host: string;
  port: number;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  logLevel: Config['LOG_LEVEL'];
  maxSkewSeconds: number;
  adminToken: string | undefined;
  faults: FaultConfig | undefined;
  autoCreatePlayersWithMinor: bigint | null;
  wireLogFile: string | undefined;
}

/** Parses the environment (empty strings count as unset). Throws ConfigError naming each bad variable. */
export function loadWalletConfig(env: Record<string, string | undefined> = process.env): WalletConfig {
  const platform = loadConfig(env);
  const input: Record<string, string> = {};
  for (const name of Object.keys(WalletEnvSchema.shape)) {
    const value = env[name];
    if (value !== undefined && value !== '') input[name] = value;
  }
  const parsed = WalletEnvSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(environment)');
        const rest = issue.path.slice(1).join('.');
        return `${name}${rest ? ` (${rest})` : ''}=${JSON.stringify(input[name] ?? '')}: expected ${issue.message}`;
      }),
    );
  }
  const w = parsed.data;
  return {
    platform,
    host: platform.HOST,
    port: platform.WALLET_PORT,
    databaseUrl: platform.DATABASE_URL,
    databasePoolSize: platform.DATABASE_POOL_SIZE,
    logLevel: platform.LOG_LEVEL,
    maxSkewSeconds: platform.SIGNATURE_MAX_SKEW_SECONDS,
    adminToken: w.WALLET_ADMIN_TOKEN,
    faults: w.WALLET_FAULTS,
    autoCreatePlayersWithMinor: w.WALLET_AUTO_CREATE_PLAYERS_MINOR ?? null,
    wireLogFile: w.WALLET_WIRE_LOG,
  };
}

/** For the entry point: load the config or print the problems and exit 2. */
export function loadWalletConfigOrExit(env: Record<string, string | undefined> = process.env): WalletConfig {
  try {
    return loadWalletConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
