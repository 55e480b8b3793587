import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface StackSecrets {
  serviceSecret: string;
  providerAdminKey: string;
  /** The demo operator's wallet secret (absent when the stack makes no demo operator: STACK_DEMO). */
  demoWalletSecret?: string;
  walletAdminToken: string;
  /** The demo operator's API key, created on the first start (shown nowhere else). */
  demoOperatorKey?: string;
  /** The password of the demo staff account (`demo`, admin of op_demo) of the staff portal. */
  demoStaffPassword?: string;
  /** Shared by the API and the portal (STAFF_PORTAL_SECRET): the forwarded client address. */
  staffPortalSecret: string;
  /** Signs replay links (REPLAY_LINK_SECRET, issue 34): a key of their own, rotated on its own. */
  replayLinkSecret: string;
}

/** The secrets the environment may give, by their variable. */
const FROM_ENV = {
  serviceSecret: 'SERVICE_SECRET',
  providerAdminKey: 'PROVIDER_ADMIN_KEY',
  staffPortalSecret: 'STAFF_PORTAL_SECRET',
  replayLinkSecret: 'REPLAY_LINK_SECRET',
} as const;
type EnvSecret = keyof typeof FROM_ENV;
export type SecretsEnv = Partial<Record<(typeof FROM_ENV)[EnvSecret], string | undefined>>;

export interface LoadedSecrets extends StackSecrets {
  file: string;
  /** Whether demoStaffPassword was generated now (the demo account's password is set again). */
  demoStaffPasswordGenerated: boolean;
  /**
   * What DATA_DIR/secrets.json holds: what the stack generated (on this start or an earlier one),
   * never a secret the environment gave (issue 34 point 9).
   */
  generated: Partial<StackSecrets>;
}

const GENERATE = {
  serviceSecret: () => randomBytes(32).toString('base64url'),
  providerAdminKey: () => `padm_${randomBytes(32).toString('base64url')}`,
  demoWalletSecret: () => `wsec_${randomBytes(24).toString('base64url')}`,
  walletAdminToken: () => randomBytes(24).toString('base64url'),
  demoStaffPassword: () => randomBytes(15).toString('base64url'),
  staffPortalSecret: () => randomBytes(32).toString('base64url'),
  replayLinkSecret: () => randomBytes(32).toString('base64url'),
};

async function writeSecretsFile(file: string, body: Partial<StackSecrets>): Promise<void> {
  await writeFile(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

/**
 * Writes the secrets file again (mode 600) after the stack generated one more (the demo operator's
 * key): what the stack generated only, never a secret the environment gave.
 */
export async function saveSecrets(secrets: LoadedSecrets): Promise<void> {
  if (secrets.demoOperatorKey) secrets.generated.demoOperatorKey = secrets.demoOperatorKey;
  await writeSecretsFile(secrets.file, secrets.generated);
}

/**
 * The default stack's secrets, generated on first start and kept in DATA_DIR/secrets.json with
 * mode 600. SERVICE_SECRET, PROVIDER_ADMIN_KEY, STAFF_PORTAL_SECRET and REPLAY_LINK_SECRET from the environment win
 * over the file and are never written to it: the file holds only what the stack generated (one the
 * stack generated on an earlier start stays there, unused while the environment gives its own).
 * The demo operator's and demo staff's secrets are made only with `demo` (STACK_DEMO).
 */
export async function loadOrCreateSecrets(
  dir: string,
  env: SecretsEnv,
  options: { demo: boolean } = { demo: true },
): Promise<LoadedSecrets> {
  const file = path.join(dir, 'secrets.json');
  let stored: Partial<StackSecrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StackSecrets>;
  const generated: Partial<StackSecrets> = { ...stored };
  const own = (name: keyof typeof GENERATE): string => {
    const value = stored[name] ?? GENERATE[name]();
    generated[name] = value;
    return value;
  };
  const given = (name: EnvSecret): string => env[FROM_ENV[name]] || own(name);
  const secrets: StackSecrets = {
    serviceSecret: given('serviceSecret'),
    providerAdminKey: given('providerAdminKey'),
    walletAdminToken: own('walletAdminToken'),
    staffPortalSecret: given('staffPortalSecret'),
    replayLinkSecret: given('replayLinkSecret'),
    ...(options.demo
      ? { demoWalletSecret: own('demoWalletSecret'), demoStaffPassword: own('demoStaffPassword') }
      : {}),
    ...(stored.demoOperatorKey ? { demoOperatorKey: stored.demoOperatorKey } : {}),
  };
  await mkdir(dir, { recursive: true });
  await writeSecretsFile(file, generated);
  return {
    ...secrets,
    file,
    demoStaffPasswordGenerated: options.demo && stored.demoStaffPassword === undefined,
    generated,
  };
}
