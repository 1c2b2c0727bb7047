import { createCipheriv, createDecipheriv, hkdfSync, randomFillSync } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const POSITION_BYTES = 8;
const ID_BYTES = IV_BYTES + POSITION_BYTES + TAG_BYTES;
/** Nonces drawn from the CSPRNG at once: one call per this many ids instead of one each (a catch-up seals thousands a second). */
const NONCES_PER_DRAW = 512;
/** Bumped if the format changes: ids of an older format are refused (422), not misread. */
const PURPOSE = 'lore/events/sse-id/v1';

/**
 * SSE event ids as opaque tokens. The event feed's positions are global (one sequence for every
 * workspace), so handing them out would let a client count other workspaces' events from the
 * gaps between its own. An id is instead the position sealed with AES-256-GCM (random nonce),
 * the workspace id as associated data: it tells its holder nothing (not even the order of two
 * ids), and one that was altered, made up, or taken from another workspace does not open.
 * The gateway still resumes from it exactly as from a position. The key is derived (HKDF) from
 * a secret every gateway of a deployment shares (the master key), so ids survive restarts and
 * work on any gateway.
 */
export class EventIds {
  private readonly key: Buffer;
  private readonly nonces = Buffer.alloc(IV_BYTES * NONCES_PER_DRAW);
  private nextNonce = NONCES_PER_DRAW;

  constructor(secret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), PURPOSE, 32));
  }

  encode(workspaceId: string, position: number): string {
    const iv = this.nonce();
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(workspaceId, 'utf8'));
    const plain = Buffer.alloc(POSITION_BYTES);
    plain.writeBigUInt64BE(BigInt(position));
    return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString('base64url');
  }

  /** A fresh random nonce (copied out: the pool is refilled in place). */
  private nonce(): Buffer {
    if (this.nextNonce === NONCES_PER_DRAW) {
      randomFillSync(this.nonces);
      this.nextNonce = 0;
    }
    const start = IV_BYTES * this.nextNonce++;
    return Buffer.from(this.nonces.subarray(start, start + IV_BYTES));
  }

  /** The position an id of this workspace stands for; null for anything else. */
  decode(workspaceId: string, id: string): number | null {
    if (!/^[A-Za-z0-9_-]{48}$/.test(id)) return null;
    const bytes = Buffer.from(id, 'base64url');
    if (bytes.length !== ID_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(workspaceId, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES + POSITION_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, IV_BYTES + POSITION_BYTES)), decipher.final()]);
      const position = plain.readBigUInt64BE();
      return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : null;
    } catch {
      return null; // altered, forged, or another workspace's
    }
  }
}
