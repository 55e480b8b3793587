import { type Env, EnvSchema } from './schema.js';

/** Raised when the environment is invalid; the message names each variable and what it expects. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface Config extends Env {
  /** Whether every keyed request must be signed (SIGNED_REQUESTS, default: required in production). */
  signedRequestsRequired: boolean;
  isProduction: boolean;
}

/**
 * Parses the environment once. Empty strings count as unset, so `FOO=` behaves like no FOO.
 * Throws ConfigError naming each bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.keys(EnvSchema.shape);
  const input: Record<string, string> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') input[name] = value;
  }
  const parsed = EnvSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(environment)');
        return `${name}=${JSON.stringify(input[name] ?? '')}: expected ${issue.message}`;
      }),
    );
  }
  const cfg = parsed.data;
  const isProduction = cfg.NODE_ENV === 'production';
  const problems: string[] = [];
  if (isProduction && !cfg.SERVICE_SECRET) problems.push('SERVICE_SECRET: required when NODE_ENV=production');
  // Issue 23: production signs every keyed request; nothing may turn that off there.
  if (isProduction && cfg.SIGNED_REQUESTS === 'optional')
    problems.push(
      'SIGNED_REQUESTS=optional: refused when NODE_ENV=production (every keyed request is signed)',
    );
  if (!cfg.TLS_CERT_FILE !== !cfg.TLS_KEY_FILE)
    problems.push('TLS_CERT_FILE, TLS_KEY_FILE: set both (HTTPS) or neither (HTTP)');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...cfg,
    isProduction,
    signedRequestsRequired: (cfg.SIGNED_REQUESTS ?? (isProduction ? 'required' : 'optional')) === 'required',
  };
}

/** For entry points: load the config or print the problems and exit 2. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
