import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks: webhook-signature is "v1,<base64 HMAC-SHA256 of id.timestamp.body>" per
// secret, space-separated, so during a rotation's grace a receiver holding either secret verifies.

/** A new endpoint secret: "whsec_" + base64 of 32 random bytes (the form the libraries accept). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signHeaders(secrets: readonly string[], messageId: string, at: Date, body: string): SignedHeaders {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' '),
  };
}
