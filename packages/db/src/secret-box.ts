import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets that must stay usable (API keys are the HMAC keys of signed
 * requests; wallet secrets sign callbacks): AES-256-GCM with a key derived from SERVICE_SECRET,
 * plus a keyed lookup hash so keys are found without decrypting anything.
 */
export interface SecretBox {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
  /** Keyed SHA-256 of a secret (hex), for lookups. */
  lookupHash(plain: string): string;
}

export function createSecretBox(serviceSecret: string): SecretBox {
  if (serviceSecret.length < 32) throw new Error('SERVICE_SECRET must be at least 32 characters');
  const encKey = Buffer.from(hkdfSync('sha256', serviceSecret, 'opi', 'secret-box:aes-256-gcm', 32));
  const macKey = Buffer.from(hkdfSync('sha256', serviceSecret, 'opi', 'secret-box:lookup', 32));
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    decrypt(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || body === undefined || !tag) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
    lookupHash(plain) {
      return createHmac('sha256', macKey).update(plain).digest('hex');
    },
  };
}
