import { invalid, newId, unavailable, type Clock, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import { send, type Transport } from '@lore/platform/transport/port';
import type { ConversationMessages } from '@lore/conversations/contracts';
import { workspaceCollection, type DocumentStore } from '@lore/platform/documents/port';
import { ChatModelError, type ChatModel, type ChatUsage } from '@lore/platform/chat/port';
import type { SealedFields } from '@lore/platform/crypto';
import type { ExtractionDecision, MemoryExtractionSettings, MemoryLimits, MemoryMessages, MemoryRecord } from '@lore/memory/contracts';
import type { Provenance } from '@lore/memory/domain';
import type { MemoryCommands } from './memory.commands';
import type { MemorySearch } from './memory-search.query';
import { liveMemoryFilter, MEMORIES, type MemoryDoc } from './memory.read-models';
import type { DecisionNote, MemoryContent } from './memory-content';
import { decisionOutput, decisionPrompt, EXTRACTION_PROMPT_VERSION, factsOutput, factsPrompt, type ModelDecision } from './memory-extraction.prompts';

type ExtractRequest = ValidRequestIn<MemoryMessages, 'extract'>;
type Check = ExtractionDecision['check'];

/**
 * Memory extraction (README, "Memory extraction"). The model proposes facts; each fact is then
 * decided in this order, the model last:
 * 1. exact duplicate — its normalised text equals a live memory's: `none`, no model;
 * 2. near duplicate — its embedding's cosine to the closest live memory is at least
 *    MEMORY_EXTRACTION_DUPLICATE_SIMILARITY: `none`, no model;
 * 3. no similar memory at all: `add`, no model;
 * 4. else the model compares it with the user's most similar live memories and decides add,
 *    update (a new version), invalidate (superseded, kept in history) or none.
 * Each decision is an event on the memory it concerns, naming the source messages, the model and
 * the prompt version; the model's fact and reason are sealed under that memory's key. Replaying
 * the log rebuilds the same memories without any model (decisions are events, not re-runs).
 */
export class MemoryExtraction {
  constructor(
    private readonly deps: {
      readonly chat: ChatModel | null;
      readonly transport: Transport;
      /** The conversations service's active-path query, for extraction from a `conversationId`. */
      readonly conversationMessages: ConversationMessages['conversationMessages'];
      readonly commands: MemoryCommands;
      readonly search: MemorySearch;
      readonly documents: DocumentStore;
      readonly sealed: SealedFields<MemoryContent>;
      readonly clock: Clock;
      readonly limits: MemoryLimits;
      readonly settings: MemoryExtractionSettings;
    },
  ) {}

  async extract(request: ExtractRequest): Promise<ReplyIn<MemoryMessages, 'extract'>> {
    const chat = this.deps.chat;
    if (chat === null) throw unavailable('No chat model is configured: set CHAT_OPENAI_BASE_URL (README, Configuration) to extract memories.');
    const extractionId = newId('ext', this.deps.clock.now().getTime());
    const messages = (await this.sourceMessages(request)).slice(-this.deps.settings.maxMessages);
    const sourceMessageIds = messages.flatMap((m) => (m.id ? [m.id] : []));
    const usage = { prompt_tokens: 0, completion_tokens: 0 };
    const count = (u: ChatUsage | null): void => {
      usage.prompt_tokens += u?.promptTokens ?? 0;
      usage.completion_tokens += u?.completionTokens ?? 0;
    };

    const proposed = await chat.complete({ messages: factsPrompt(messages), output: factsOutput });
    count(proposed.usage);
    const model = proposed.model;
    // One fact once, however often the model repeats it; texts cut to what a memory may hold.
    const seen = new Set<string>();
    const facts = proposed.value.facts
      .map((f) => ({ fact: f.fact.trim().slice(0, this.deps.limits.maxMemoryChars), topics: f.topics.slice(0, this.deps.limits.maxTopics).map((t) => t.slice(0, this.deps.limits.maxTopicChars)).filter((t) => t !== '') }))
      .filter((f) => f.fact !== '' && !seen.has(normalise(f.fact)) && seen.add(normalise(f.fact)));
    const considered = facts.slice(0, this.deps.settings.maxFacts);

    // Opening every live memory serves only to reconcile facts: none proposed, none opened.
    const liveTexts = considered.length === 0 ? new Map<string, string>() : await this.liveTexts(request);
    const decisions: ExtractionDecision[] = [];
    for (const fact of considered) {
      const provenance = (decision: Provenance['decision'], check: Check): Omit<Provenance, 'note'> => ({
        decisionId: newId('dec', this.deps.clock.now().getTime()),
        decision,
        check,
        extractionId,
        conversationId: request.conversationId ?? null,
        sourceMessageIds,
        model,
        promptVersion: EXTRACTION_PROMPT_VERSION,
        undoes: null,
      });
      const decided = await this.decideFact(request, fact, liveTexts, provenance, chat, count);
      // Later facts of the same extraction see what this one added or changed.
      const memory = decided.memory;
      if (memory !== null) {
        for (const [text, id] of liveTexts) if (id === memory.memory_id) liveTexts.delete(text);
        if (memory.status === 'active') liveTexts.set(normalise(memory.memory), memory.memory_id);
      }
      decisions.push(decided);
    }
    return { extraction_id: extractionId, model, prompt_version: EXTRACTION_PROMPT_VERSION, source_message_ids: sourceMessageIds, decisions, dropped_facts: facts.length - considered.length, usage };
  }

  private async decideFact(
    request: ExtractRequest,
    fact: { readonly fact: string; readonly topics: string[] },
    liveTexts: ReadonlyMap<string, string>,
    provenance: (decision: Provenance['decision'], check: Check) => Omit<Provenance, 'note'>,
    chat: ChatModel,
    count: (usage: ChatUsage | null) => void,
  ): Promise<ExtractionDecision> {
    const owner = { workspaceId: request.workspaceId, userId: request.userId, actor: request.actor };
    const record = (p: Omit<Provenance, 'note'>, memory: MemoryRecord, reason: string | null, similarity: number | null): ExtractionDecision => ({
      decision_id: p.decisionId,
      decision: p.decision as ExtractionDecision['decision'],
      check: p.check as Check,
      fact: fact.fact,
      reason,
      similarity,
      memory_id: memory.memory_id,
      memory,
    });
    const note = (reason: string | null, similarity: number | null): DecisionNote => ({ fact: fact.fact, reason, similarity });

    const exact = liveTexts.get(normalise(fact.fact));
    if (exact !== undefined) {
      const p = provenance('none', 'exact_duplicate');
      const reason = 'the same text as this memory';
      return record(p, await this.deps.commands.decide({ ...owner, memoryId: exact }, { kind: 'none' }, p, note(reason, 1)), reason, 1);
    }
    const similar = (await this.deps.search.search({ ...owner, query: fact.fact, limit: this.deps.settings.candidates })).results;
    const closest = similar.reduce<{ id: string; cosine: number } | null>((best, hit) => {
      const cosine = hit.scores.vector?.score ?? null;
      return cosine !== null && (best === null || cosine > best.cosine) ? { id: hit.memory.memory_id, cosine } : best;
    }, null);
    const similarity = closest === null ? null : round(closest.cosine);
    if (closest !== null && closest.cosine >= this.deps.settings.duplicateSimilarity) {
      const p = provenance('none', 'near_duplicate');
      const reason = `cosine similarity ${similarity} ≥ ${this.deps.settings.duplicateSimilarity}`;
      return record(p, await this.deps.commands.decide({ ...owner, memoryId: closest.id }, { kind: 'none' }, p, note(reason, similarity)), reason, similarity);
    }
    if (similar.length === 0) {
      const p = provenance('add', 'no_similar_memory');
      const added = await this.deps.commands.add(owner, request.memoryType, { memory: fact.fact, topics: fact.topics, metadata: {} }, undefined, { provenance: p, note: note(null, null) });
      return record(p, added, null, null);
    }

    const candidates = similar.map((hit, i) => ({ alias: `m${i + 1}`, memoryId: hit.memory.memory_id, memory: hit.memory.memory }));
    const answer = await chat.complete({ messages: decisionPrompt(fact.fact, candidates), output: decisionOutput });
    count(answer.usage);
    const decided = this.checked(answer.value, candidates);
    const p = provenance(decided.decision, 'model');
    const why = note(decided.reason, similarity);
    switch (decided.decision) {
      case 'add': {
        const added = await this.deps.commands.add(owner, request.memoryType, { memory: decided.memory ?? fact.fact, topics: fact.topics, metadata: {} }, undefined, { provenance: p, note: why });
        return record(p, added, decided.reason, similarity);
      }
      case 'update':
        return record(p, await this.deps.commands.decide({ ...owner, memoryId: decided.target }, { kind: 'update', memory: decided.memory ?? fact.fact }, p, why), decided.reason, similarity);
      case 'invalidate':
        return record(p, await this.deps.commands.decide({ ...owner, memoryId: decided.target }, { kind: 'invalidate' }, p, why), decided.reason, similarity);
      case 'none':
        return record(p, await this.deps.commands.decide({ ...owner, memoryId: decided.target }, { kind: 'none' }, p, why), decided.reason, similarity);
    }
  }

  /**
   * The given messages (with a `conversationId` they came from, as the background reactor sends
   * them), or else the conversation's active path (its tail), read from the conversations service as the user.
   */
  private async sourceMessages(request: ExtractRequest): Promise<ReadonlyArray<{ readonly id?: string | null | undefined; readonly role: string; readonly content: string }>> {
    const given = request.messages ?? null;
    const conversationId = request.conversationId ?? null;
    if (given !== null) return given;
    if (conversationId === null) throw invalid(['message', 'messages'], 'Give `messages` or a `conversationId`', 'value_error');
    const max = this.deps.settings.maxMessages;
    const ref = { workspaceId: request.workspaceId, userId: request.userId, actor: request.actor, collections: null, conversationId, includeBranches: false };
    // The active path, oldest first: the first page tells its length, the second is its tail.
    const first = await send(this.deps.transport, this.deps.conversationMessages, { ...ref, skip: 0, limit: max });
    const page = first.total > max ? await send(this.deps.transport, this.deps.conversationMessages, { ...ref, skip: first.total - max, limit: max }) : first;
    if (page.items.length === 0) throw invalid(['message', 'conversationId'], 'The conversation has no messages to extract from', 'value_error');
    return page.items.map((m) => ({ id: m.id, role: m.role, content: m.content }));
  }

  /** The model's decision, or a clear failure when it names no memory it was shown (never a guess). */
  private checked(
    answer: ModelDecision,
    candidates: ReadonlyArray<{ readonly alias: string; readonly memoryId: string }>,
  ): { decision: 'add'; memory: string | null; reason: string } | { decision: 'update' | 'invalidate' | 'none'; target: string; memory: string | null; reason: string } {
    const memory = answer.memory === null ? null : answer.memory.trim().slice(0, this.deps.limits.maxMemoryChars) || null;
    if (answer.decision === 'add') return { decision: 'add', memory, reason: answer.reason };
    const target = candidates.find((c) => c.alias === answer.memory_id);
    if (target === undefined) {
      throw new ChatModelError('malformed_output', `The chat model decided "${answer.decision}" about memory ${JSON.stringify(answer.memory_id)}, which is none of the ${candidates.length} memories it was shown; nothing was changed for this fact.`);
    }
    return { decision: answer.decision, target: target.memoryId, memory, reason: answer.reason };
  }

  /** The user's live memories by normalised text (opened once per extraction), for the exact-duplicate check. */
  private async liveTexts(request: ExtractRequest): Promise<Map<string, string>> {
    const live = await workspaceCollection<MemoryDoc>(this.deps.documents, MEMORIES, request.workspaceId).find({
      filter: { ...liveMemoryFilter(this.deps.clock.now()), user_id: request.userId },
    });
    const texts = new Map<string, string>();
    for (const doc of live.items) {
      const content = await this.deps.sealed.open(doc.id, doc.content).catch(() => null); // erased meanwhile
      if (content !== null) texts.set(normalise(content.memory), doc.id);
    }
    return texts;
  }
}

/** Unicode-compatibility folded, lower-cased, whitespace collapsed, final punctuation dropped: "Lives in Paris." = "lives  in paris". */
export function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.!?;:,…]+$/u, '');
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
