import type { ConversationRecord, MessageRecord } from '@lore/conversations/contracts';

/**
 * Documents of the conversation read models. Unlike the event log, where everything a user
 * wrote is sealed, they hold it in the clear: lists sort by title and search message words.
 * Deletion removes them and purges the engine's files (SQLite secure_delete, FTS5
 * secure-delete, WAL truncation); the read models are rebuilt from the log, where shredded
 * keys leave deleted messages unreadable.
 */
export type ConversationDoc = ConversationRecord & Revisioned;
export type MessageDoc = MessageRecord & Revisioned;
/** The stream revision a document reflects (`evolveDocument`); replies leave it out (their schemas do not name it). */
type Revisioned = { readonly revision: number; readonly [field: string]: unknown };

export const CONVERSATIONS = 'conversations';
export const MESSAGES = 'conversation_messages';
