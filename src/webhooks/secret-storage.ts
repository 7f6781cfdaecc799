import { createSecretBox, type SecretBox } from '../shared/secret-box.js';
import { AppError } from '../errors.js';

// Endpoint secrets must be readable to sign, so they cannot be stored as digests: they are sealed
// (AES-256-GCM) under a key derived from CONSOLE_SECRET, the console's key for TOTP secrets, with
// a purpose of their own. A leaked database alone cannot forge a delivery.

export interface WebhookSecrets {
  seal(secret: string): string;
  open(stored: string): string;
}

const PURPOSE = 'cra-webhook-secrets';

export function webhookSecrets(consoleSecret: string | null): WebhookSecrets {
  const box: SecretBox | null = consoleSecret ? createSecretBox(consoleSecret, PURPOSE) : null;
  const missing = () =>
    new AppError(
      'service_unavailable',
      'CONSOLE_SECRET is not set: webhook secrets are stored encrypted under it; set the same value on every instance and for cra-admin',
    );
  return {
    seal(secret) {
      if (!box) throw missing();
      return box.seal(secret);
    },
    open(stored) {
      if (!box) throw missing();
      return box.open(stored);
    },
  };
}
