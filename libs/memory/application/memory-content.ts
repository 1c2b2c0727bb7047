import type { MemoryDecision, MemoryRecord, MemoryVersion } from '@lore/memory/contracts';
import type { Provenance } from '@lore/memory/domain';
import type { MemoryDoc, MemoryVersionDoc } from './memory.read-models';

/*
 * A memory's content, sealed at rest, and what the API shows once it is opened: a read-model
 * document plus its opened content make the `MemoryRecord`/`MemoryVersion` that
 * `@lore/memory/contracts` (memory.records.ts) defines.
 */

/** The sealed part of a memory: everything the user wrote. */
export interface MemoryContent {
  readonly memory: string;
  readonly topics: string[];
  readonly metadata: Record<string, unknown>;
}

/** The sealed part of a decision (`Provenance.note`), under the memory's own key: the proposed fact and the model's reason. */
export interface DecisionNote {
  readonly fact: string | null;
  readonly reason: string | null;
  readonly similarity: number | null;
}

type RecordHead = Pick<MemoryDoc, 'id' | 'user_id' | 'memory_type' | 'created_at' | 'updated_at' | 'superseded' | 'expires_at'>;

export function toMemoryRecord(doc: RecordHead, content: MemoryContent): MemoryRecord {
  return {
    memory_id: doc.id,
    user_id: doc.user_id,
    memory: content.memory,
    memory_type: doc.memory_type,
    topics: content.topics,
    metadata: content.metadata,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    status: doc.superseded === true ? 'superseded' : 'active',
    expires_at: doc.expires_at ?? null,
  };
}

export function toMemoryVersion(doc: MemoryVersionDoc, content: MemoryContent, note: DecisionNote | null): MemoryVersion {
  return {
    version: doc.version,
    event: doc.event,
    memory: content.memory,
    topics: content.topics,
    metadata: content.metadata,
    recorded_at: doc.recorded_at,
    decision: doc.provenance ? toMemoryDecision(doc.provenance, note) : null,
  };
}

export function toMemoryDecision(p: Provenance, note: DecisionNote | null): MemoryDecision {
  return {
    decision_id: p.decisionId,
    decision: p.decision,
    check: p.check,
    extraction_id: p.extractionId,
    conversation_id: p.conversationId,
    source_message_ids: p.sourceMessageIds,
    model: p.model,
    prompt_version: p.promptVersion,
    undoes: p.undoes,
    fact: note?.fact ?? null,
    reason: note?.reason ?? null,
    similarity: note?.similarity ?? null,
  };
}

/** Whether a memory is one lists, search and extraction see: not superseded, not past its expiry. */
export function isLive(doc: Pick<MemoryDoc, 'superseded' | 'expires_at'>, now: Date): boolean {
  return doc.superseded !== true && (doc.expires_at == null || doc.expires_at > now.toISOString());
}
