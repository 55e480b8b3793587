import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface StackSecrets {
  serviceSecret: string;
  providerAdminKey: string;
  demoWalletSecret: string;
  walletAdminToken: string;
  /** The demo operator's API key, created on the first start (shown nowhere else). */
  demoOperatorKey?: string;
  /** The password of the demo staff account (`demo`, admin of op_demo) of the staff portal. */
  demoStaffPassword: string;
  /** Shared by the API and the portal (STAFF_PORTAL_SECRET): the forwarded client address. */
  staffPortalSecret: string;
}

/**
 * The default stack's secrets, generated on first start and kept in DATA_DIR/secrets.json with
 * mode 600. SERVICE_SECRET and PROVIDER_ADMIN_KEY from the environment win over the file.
 */
/** Writes the secrets file again (mode 600), e.g. after the demo operator key was created. */
export async function saveSecrets(file: string, secrets: StackSecrets): Promise<void> {
  const { serviceSecret, providerAdminKey, demoWalletSecret, walletAdminToken, demoOperatorKey } = secrets;
  const { demoStaffPassword, staffPortalSecret } = secrets;
  const body = {
    serviceSecret,
    providerAdminKey,
    demoWalletSecret,
    walletAdminToken,
    demoOperatorKey,
    demoStaffPassword,
    staffPortalSecret,
  };
  await writeFile(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

export async function loadOrCreateSecrets(
  dir: string,
  env: {
    SERVICE_SECRET?: string | undefined;
    PROVIDER_ADMIN_KEY?: string | undefined;
    STAFF_PORTAL_SECRET?: string | undefined;
  },
): Promise<StackSecrets & { file: string; demoStaffPasswordGenerated: boolean }> {
  const file = path.join(dir, 'secrets.json');
  let stored: Partial<StackSecrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StackSecrets>;
  const secrets: StackSecrets = {
    serviceSecret: stored.serviceSecret ?? randomBytes(32).toString('base64url'),
    providerAdminKey: stored.providerAdminKey ?? `padm_${randomBytes(32).toString('base64url')}`,
    demoWalletSecret: stored.demoWalletSecret ?? `wsec_${randomBytes(24).toString('base64url')}`,
    walletAdminToken: stored.walletAdminToken ?? randomBytes(24).toString('base64url'),
    demoStaffPassword: stored.demoStaffPassword ?? randomBytes(15).toString('base64url'),
    staffPortalSecret: stored.staffPortalSecret ?? randomBytes(32).toString('base64url'),
    ...(stored.demoOperatorKey ? { demoOperatorKey: stored.demoOperatorKey } : {}),
  };
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return {
    file,
    demoStaffPasswordGenerated: stored.demoStaffPassword === undefined,
    ...secrets,
    ...(env.SERVICE_SECRET ? { serviceSecret: env.SERVICE_SECRET } : {}),
    ...(env.PROVIDER_ADMIN_KEY ? { providerAdminKey: env.PROVIDER_ADMIN_KEY } : {}),
    ...(env.STAFF_PORTAL_SECRET ? { staffPortalSecret: env.STAFF_PORTAL_SECRET } : {}),
  };
}
