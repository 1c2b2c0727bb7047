/**
 * Translates the port's filter language, sort and keyset position into MongoDB queries.
 * The port was shaped after MongoDB, so most operators map one to one; the exceptions are
 * the port's stricter meanings: `$exists: true` is "present and not null", `$contains`
 * only matches arrays (Mongo equality would also match an equal scalar), and `$icontains`
 * is a literal substring, so the needle is regex-escaped. `$text` becomes MongoDB's `$text`
 * with every word quoted: unquoted terms would be ORed, while each quoted string must match
 * (several of them are ANDed), and quoting leaves no room for `-negation` or phrase syntax.
 */
import type { Document } from 'mongodb';
import type { FieldOperators, Filter, Scalar } from '@lore/platform/documents/port';
import { assertFieldPath, isScalar, scalarOperand, scalarsOperand, textSearchWords } from '@lore/platform/documents/port';
import type { SortKey } from '@lore/platform/documents/port';

/** Matches no document; Mongo refuses an empty `$or`, and this is what one would mean. */
const NOTHING: Document = { _id: { $in: [] } };

/** The port's `id` is stored as Mongo's `_id`, so lookups by id use the built-in index. */
export function mongoField(path: string): string {
  return path === 'id' ? '_id' : path;
}

/**
 * `$text`, when present, stays a key of the top-level document: MongoDB allows one `$text` per
 * query, never under `$nor` or `$elemMatch`, and only in an `$or` whose every clause is indexed.
 */
export function translateFilter(filter: Filter | undefined): Document {
  return translateConditions(filter, true);
}

/** Whether the filter searches text (the adapter then checks for a text index first). */
export function usesText(filter: Filter | undefined): boolean {
  return filter !== undefined && filter !== null && typeof filter === 'object' && filter.$text !== undefined;
}

/** Both conditions, keeping a `$text` of `filter` at the top level. */
export function andAlso(filter: Document, extra: Document): Document {
  const { $text: text, ...rest } = filter;
  const both = { $and: [rest, extra] };
  return text === undefined ? both : { $text: text as unknown, ...both };
}

function translateConditions(filter: Filter | undefined, topLevel: boolean): Document {
  if (filter === undefined) return {};
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw new Error('a filter must be an object');
  const clauses: Document[] = [];
  let text: Document | undefined;
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === '$or') {
      if (!Array.isArray(condition)) throw new Error('$or takes an array of filters');
      const alternatives = (condition as unknown[]).map((sub) => translateConditions(sub as Filter, false));
      clauses.push(alternatives.length === 0 ? NOTHING : { $or: alternatives });
      continue;
    }
    if (key === '$text') {
      if (!topLevel) throw new Error('$text is allowed only at the top level of a filter, not inside $or');
      if (typeof condition !== 'string') throw new Error('$text takes a string');
      const words = textSearchWords(condition);
      if (words.length === 0) clauses.push(NOTHING);
      else text = { $search: words.map((word) => `"${word}"`).join(' '), $caseSensitive: false, $diacriticSensitive: false };
      continue;
    }
    assertFieldPath(key);
    clauses.push(...fieldClauses(key, condition));
  }
  const rest = conjunction(clauses);
  return text === undefined ? rest : { $text: text, ...rest };
}

/**
 * Strictly after `values` in the order of `keys`, with null/absent sorting lowest as Mongo
 * sorts them. `$gt`/`$lt` only compare within one BSON type, so a sort key must hold one
 * type (plus null/absent) for paging to be exact, which is how read models are shaped.
 */
export function translateKeyset(keys: readonly SortKey[], values: readonly Scalar[]): Document {
  const terms: Document[] = [];
  keys.forEach((key, i) => {
    const value = values[i] ?? null;
    // Nothing sorts after null in descending order.
    if (key.direction === 'desc' && value === null) return;
    const field = mongoField(key.field);
    const ties = keys.slice(0, i).map((prior, j): Document => ({ [mongoField(prior.field)]: { $eq: values[j] ?? null } }));
    let after: Document;
    if (key.direction === 'asc') after = value === null ? { [field]: { $ne: null } } : { [field]: { $gt: value } };
    else after = { $or: [{ [field]: { $lt: value } }, { [field]: { $eq: null } }] };
    terms.push(conjunction([...ties, after]));
  });
  return terms.length === 0 ? NOTHING : terms.length === 1 ? (terms[0] ?? NOTHING) : { $or: terms };
}

export function translateSort(keys: readonly SortKey[]): Map<string, 1 | -1> {
  // A Map keeps key order even for field names JavaScript objects would reorder.
  return new Map(keys.map((key) => [mongoField(key.field), key.direction === 'asc' ? 1 : -1]));
}

function fieldClauses(path: string, condition: unknown): Document[] {
  const field = mongoField(path);
  if (isScalar(condition)) return [{ [field]: { $eq: condition } }];
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    throw new Error(`filter on ${path}: expected a scalar or an operator object`);
  }
  const clauses: Document[] = [];
  // One clause per operator: `$exists` and `$ne` both become `$ne` and would collide in one object.
  for (const [operator, operand] of Object.entries(condition as FieldOperators)) {
    if (operand === undefined) continue;
    clauses.push({ [field]: operatorCondition(path, operator, operand) });
  }
  return clauses;
}

function operatorCondition(path: string, operator: string, operand: unknown): Document {
  switch (operator) {
    case '$eq':
    case '$ne':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return { [operator]: scalarOperand(path, operator, operand) };
    case '$in':
    case '$nin':
      return { [operator]: scalarsOperand(path, operator, operand) };
    case '$exists':
      if (typeof operand !== 'boolean') throw new Error(`filter on ${path}: $exists takes a boolean`);
      // Mongo's own $exists counts an explicit null as present; the port does not.
      return operand ? { $ne: null } : { $eq: null };
    case '$contains':
      return { $elemMatch: { $eq: scalarOperand(path, operator, operand) } };
    case '$containsAll': {
      const wanted = scalarsOperand(path, operator, operand);
      // `$all: []` matches nothing in Mongo; the port's "holds every one of none" is any array.
      return wanted.length === 0 ? { $type: 'array' } : { $all: wanted, $type: 'array' };
    }
    case '$icontains':
      if (typeof operand !== 'string') throw new Error(`filter on ${path}: $icontains takes a string`);
      return { $regex: escapeRegex(operand), $options: 'i' };
    default:
      throw new Error(`filter on ${path}: unknown operator ${operator}`);
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function conjunction(clauses: readonly Document[]): Document {
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? (clauses[0] ?? {}) : { $and: clauses };
}
