import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { AppError } from '../errors.js';
import { canonicalJson } from '../shared/canonical-json.js';

// A signed checkpoint anchors the registry outside the database (decisions §8): the chain's
// hashes catch an edited, swapped or deleted entry, but someone who can write the database can
// also rewrite the whole chain and move the organisation's head along. A head signed with a key
// that never enters the database, kept by the auditor, cannot be forged that way.

export interface CheckpointHead {
  org: string;
  sequence: number;
  hash: string;
  time: string;
}

export interface Checkpoint extends CheckpointHead {
  version: 1;
  algorithm: 'Ed25519';
  /** Base64 SPKI DER of the signing key's public half, to tell keys apart; never trusted by itself. */
  public_key: string;
  /** Base64 Ed25519 signature over the canonical JSON of {version, org, sequence, hash, time}. */
  signature: string;
}

/**
 * REGISTRY_SIGNING_KEY: an Ed25519 private key as PEM (PKCS#8) or as base64 of its PKCS#8 DER,
 * e.g. `openssl genpkey -algorithm ed25519 -outform DER | base64 -w0`.
 */
export function registrySigningKey(value: string | null): KeyObject {
  if (!value)
    throw new AppError(
      'validation_failed',
      'REGISTRY_SIGNING_KEY is not set: checkpoints need an Ed25519 private key kept outside the database',
    );
  let key: KeyObject;
  try {
    key = value.includes('-----BEGIN')
      ? createPrivateKey(value)
      : createPrivateKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new AppError('validation_failed', 'REGISTRY_SIGNING_KEY is not a readable private key (PEM or base64 PKCS#8 DER)');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new AppError('validation_failed', 'REGISTRY_SIGNING_KEY must be an Ed25519 key');
  return key;
}

function signedBytes(head: CheckpointHead): Buffer {
  return Buffer.from(canonicalJson({ version: 1, org: head.org, sequence: head.sequence, hash: head.hash, time: head.time }));
}

function publicKeyText(key: KeyObject): string {
  return createPublicKey(key).export({ format: 'der', type: 'spki' }).toString('base64');
}

export function signCheckpoint(head: CheckpointHead, key: KeyObject): Checkpoint {
  return {
    version: 1,
    algorithm: 'Ed25519',
    ...head,
    public_key: publicKeyText(key),
    signature: sign(null, signedBytes(head), key).toString('base64'),
  };
}

/** The checkpoint in `text`, or a validation error saying what is wrong with it. */
export function parseCheckpoint(text: string): Checkpoint {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('validation_failed', 'the checkpoint file is not JSON');
  }
  const c = value as Partial<Checkpoint> | null;
  const valid =
    c !== null &&
    typeof c === 'object' &&
    c.version === 1 &&
    c.algorithm === 'Ed25519' &&
    typeof c.org === 'string' &&
    Number.isInteger(c.sequence) &&
    (c.sequence ?? -1) >= 0 &&
    typeof c.hash === 'string' &&
    /^[0-9a-f]{64}$/.test(c.hash) &&
    typeof c.time === 'string' &&
    typeof c.public_key === 'string' &&
    typeof c.signature === 'string';
  if (!valid) throw new AppError('validation_failed', 'the checkpoint file is not a registry checkpoint (version 1, Ed25519)');
  return c as Checkpoint;
}

/** True when `checkpoint` was signed by `key` (the verifier's own key, never the file's). */
export function signedBy(checkpoint: Checkpoint, key: KeyObject): boolean {
  try {
    return verify(null, signedBytes(checkpoint), createPublicKey(key), Buffer.from(checkpoint.signature, 'base64'));
  } catch {
    return false;
  }
}
