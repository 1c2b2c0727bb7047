import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '@lore/platform/kernel';
import { SealedFields, sealedKeyId, type DataKey, type Keyring } from '@lore/platform/crypto';
import type { ContentText, LiveContent } from '@lore/knowledge/domain';

/**
 * A content's words at rest: every text an event carries (the content's parts, its chunks, a
 * chunk edit, a re-index batch) is sealed under the content's own data key, bound to the
 * content id. Erasing a content shreds that key (README: "Knowledge erasure"). Contents added
 * before sealing have plain texts; their later texts stay plain (they have no key to shred:
 * their erasure deletes their streams).
 */
export class ContentTexts {
  private readonly sealed: SealedFields<string>;

  constructor(private readonly keyring: Keyring) {
    this.sealed = new SealedFields<string>(keyring, 'Content');
  }

  /** A new content's key: durable before any event sealed with it is appended. */
  newKey(): Promise<DataKey> {
    return this.sealed.newKey();
  }

  /** The content's key, or null for a content added before sealing. */
  async keyOf(content: Pick<LiveContent, 'textParts'>): Promise<DataKey | null> {
    const first = content.textParts[0];
    return first === undefined || typeof first === 'string' ? null : this.sealed.keyOf(first.sealed);
  }

  seal(contentId: string, text: string, key: DataKey | null): ContentText {
    return key === null ? text : { sealed: this.sealed.seal(contentId, text, key) };
  }

  async open(contentId: string, text: ContentText): Promise<string> {
    return typeof text === 'string' ? text : this.sealed.open(contentId, text.sealed);
  }

  /**
   * Like open, but null once the content's key is shredded: a projection replaying a
   * collection's re-index batch that names a content erased since skips its chunks.
   */
  async openIfKept(contentId: string, text: ContentText): Promise<string | null> {
    try {
      return await this.open(contentId, text);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
  }

  async openParts(content: Pick<LiveContent, 'contentId' | 'textParts'>): Promise<string> {
    const parts: string[] = [];
    for (const part of content.textParts) {
      // A turn of the event loop between parts: a 20 MB text is ~100 parts of 1–2 ms each, which
      // in one turn stalled every other request of the process (an await alone does not yield).
      if (parts.length > 0) await nextTurn();
      parts.push(await this.open(content.contentId, part));
    }
    return parts.join('');
  }
}

/** The data key a text was sealed with, or null for a plain one. */
export function keyIdOfText(text: ContentText): string | null {
  return typeof text === 'string' ? null : sealedKeyId(text.sealed);
}
