/**
 * Translates the port's filter language, sort and keyset position into SQL over JSON bodies.
 *
 * Values are always bound parameters; only validated field paths reach the SQL text, as
 * JSON path literals, because SQLite matches expression indexes by their literal text.
 * Every predicate is built to yield 0 or 1, never NULL, so that negation ($ne, $nin) keeps
 * MongoDB's meaning: a document lacking the field does satisfy `$ne`.
 * Comparisons are type-bracketed as in MongoDB: `{ n: { $gt: 5 } }` never matches a string.
 */
import type { FieldOperators, Filter, Scalar } from '@lore/platform/documents/port';
import { assertFieldPath, isScalar, scalarOperand, scalarsOperand, textSearchWords } from '@lore/platform/documents/port';
import type { SortKey } from '@lore/platform/documents/port';

export type SqlValue = string | number | null;

/** A field's SQL value: `id` is the primary-key column, every other field lives in the JSON body. */
export function valueSql(path: string): string {
  return path === 'id' ? 'id' : `json_extract(body, '$.${path}')`;
}

/** A field's JSON type name ('null', 'true', 'false', 'integer', 'real', 'text', 'array', 'object'), NULL when absent. */
function typeSql(path: string): string {
  return path === 'id' ? `'text'` : `json_type(body, '$.${path}')`;
}

const isNumberType = (type: string): string => `IFNULL(${type}, '') IN ('integer', 'real')`;
const isBooleanType = (type: string): string => `IFNULL(${type}, '') IN ('true', 'false')`;

const RANGE_OPERATORS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;
type RangeOperator = keyof typeof RANGE_OPERATORS;

/**
 * An FTS5 MATCH expression requiring every word: each word a double-quoted string (quotes
 * doubled), so nothing in user input can act as FTS5 syntax (`NEAR`, `*`, `col:`, `-`, `^`).
 * Implicit AND between strings is FTS5's own rule. Null when there is no word.
 */
export function ftsMatchExpression(search: string): string | null {
  const words = textSearchWords(search);
  return words.length === 0 ? null : words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' ');
}

/**
 * Collects bound parameters in the order their placeholders appear in the SQL text.
 * `textTable` names the collection's FTS5 table, if it has one; it is asked for only when a
 * filter uses `$text`.
 */
export class SqliteQueryTranslator {
  readonly params: SqlValue[] = [];
  /** The MATCH expression of the filter's `$text`, once translated (none without words). */
  textMatch: string | undefined;

  constructor(private readonly textTable: () => string | undefined = () => undefined) {}

  bind(value: Scalar): string {
    // better-sqlite3 refuses booleans; JSON booleans read back from json_extract as 1 and 0.
    this.params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    return '?';
  }

  filter(filter: Filter | undefined): string {
    return this.conditions(filter, true);
  }

  orderBy(keys: readonly SortKey[]): string {
    return keys.map((key) => `${valueSql(key.field)} ${key.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
  }

  /**
   * Rows strictly after `values` in the order of `keys` (the last key is `id`, so the order is
   * total). NULL sorts first ascending and last descending, as in MongoDB, so "after" must
   * treat NULL explicitly: plain `>` and `<` would drop rows holding NULL.
   */
  keyset(keys: readonly SortKey[], values: readonly Scalar[]): string {
    const terms: string[] = [];
    const first = keys[0];
    const firstValue = values[0] ?? null;
    // A redundant lower bound on the leading key lets SQLite range-scan an index on it.
    const leading = first && keys.length > 1 && first.direction === 'asc' && firstValue !== null ? `${valueSql(first.field)} >= ${this.bind(firstValue)}` : undefined;
    keys.forEach((key, i) => {
      const value = values[i] ?? null;
      // Nothing sorts after NULL in descending order; skip before binding anything for this term.
      if (key.direction === 'desc' && value === null) return;
      const parts = keys.slice(0, i).map((prior, j) => `${valueSql(prior.field)} IS ${this.bind(values[j] ?? null)}`);
      const field = valueSql(key.field);
      if (key.direction === 'asc') parts.push(value === null ? `${field} IS NOT NULL` : `${field} > ${this.bind(value)}`);
      else parts.push(`(${field} < ${this.bind(value)} OR ${field} IS NULL)`);
      terms.push(parts.join(' AND '));
    });
    const after = disjunction(terms);
    return leading === undefined ? after : `${leading} AND (${after})`;
  }

  private conditions(filter: Filter | undefined, topLevel: boolean): string {
    if (filter === undefined) return '1';
    if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw new Error('a filter must be an object');
    const parts: string[] = [];
    for (const [key, condition] of Object.entries(filter)) {
      if (condition === undefined) continue;
      if (key === '$or') {
        parts.push(this.or(condition));
        continue;
      }
      if (key === '$text') {
        if (!topLevel) throw new Error('$text is allowed only at the top level of a filter, not inside $or');
        parts.push(this.text(condition));
        continue;
      }
      assertFieldPath(key);
      parts.push(this.field(key, condition));
    }
    return conjunction(parts);
  }

  private or(condition: unknown): string {
    if (!Array.isArray(condition)) throw new Error('$or takes an array of filters');
    return disjunction((condition as unknown[]).map((sub) => this.conditions(sub as Filter, false)));
  }

  /**
   * An uncorrelated IN subquery: SQLite runs the FTS lookup once into an ephemeral set and can
   * then either probe it per row or drive the scan by rowid from it, whichever plan is cheaper.
   */
  private text(condition: unknown): string {
    if (typeof condition !== 'string') throw new Error('$text takes a string');
    const table = this.textTable();
    if (table === undefined) throw new Error('$text needs a text index on the collection: declare its field with ensureTextIndex first');
    const match = ftsMatchExpression(condition);
    if (match === null) return '0';
    this.textMatch = match;
    return `rowid IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ${this.bind(match)})`;
  }

  private field(path: string, condition: unknown): string {
    if (isScalar(condition)) return this.equals(valueSql(path), typeSql(path), condition);
    if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
      throw new Error(`filter on ${path}: expected a scalar or an operator object`);
    }
    const parts: string[] = [];
    for (const [operator, operand] of Object.entries(condition as FieldOperators)) {
      if (operand === undefined) continue;
      parts.push(this.operator(path, operator, operand));
    }
    return conjunction(parts);
  }

  private operator(path: string, operator: string, operand: unknown): string {
    const value = valueSql(path);
    const type = typeSql(path);
    switch (operator) {
      case '$eq':
        return this.equals(value, type, scalarOperand(path, operator, operand));
      case '$ne':
        return `NOT (${this.equals(value, type, scalarOperand(path, operator, operand))})`;
      case '$in':
        return this.in(value, type, scalarsOperand(path, operator, operand));
      case '$nin':
        return `NOT (${this.in(value, type, scalarsOperand(path, operator, operand))})`;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        return this.range(operator, value, type, scalarOperand(path, operator, operand));
      case '$exists':
        if (typeof operand !== 'boolean') throw new Error(`filter on ${path}: $exists takes a boolean`);
        return operand ? `${value} IS NOT NULL` : `${value} IS NULL`;
      case '$contains':
        return `(${type} IS 'array' AND ${this.element(path, scalarOperand(path, operator, operand))})`;
      case '$containsAll': {
        const wanted = scalarsOperand(path, operator, operand).map((item) => this.element(path, item));
        return conjunction([`${type} IS 'array'`, ...wanted]);
      }
      case '$icontains':
        if (typeof operand !== 'string') throw new Error(`filter on ${path}: $icontains takes a string`);
        return `(${type} IS 'text' AND lore_icontains(${value}, ${this.bind(operand)}))`;
      default:
        throw new Error(`filter on ${path}: unknown operator ${operator}`);
    }
  }

  /** Type-strict equality: `true` never equals 1, "5" never equals 5, NULL means absent or null. */
  private equals(value: string, type: string, operand: Scalar): string {
    if (operand === null) return `${value} IS NULL`;
    if (typeof operand === 'boolean') return `${type} IS '${operand ? 'true' : 'false'}'`;
    if (typeof operand === 'number') return `(${value} = ${this.bind(operand)} AND ${isNumberType(type)})`;
    // json_extract answers a JSON string as TEXT, a number or boolean as INTEGER/REAL (never equal
    // to TEXT), an array or object as its minified JSON text: only an operand that could be such
    // a text needs the type check, which would make a count read every body instead of the index.
    // `IS NOT NULL` keeps the result 0 rather than NULL for an absent field (so that NOT works).
    if (!operand.startsWith('[') && !operand.startsWith('{')) return `(${value} = ${this.bind(operand)} AND ${value} IS NOT NULL)`;
    return `(${value} = ${this.bind(operand)} AND ${type} IS 'text')`;
  }

  /** Grouped by type so each group is one `IN (...)` an index can serve. */
  private in(value: string, type: string, operands: readonly Scalar[]): string {
    const parts: string[] = [];
    if (operands.includes(null)) parts.push(`${value} IS NULL`);
    for (const flag of [true, false]) if (operands.includes(flag)) parts.push(this.equals(value, type, flag));
    const numbers = operands.filter((item): item is number => typeof item === 'number');
    if (numbers.length > 0) parts.push(`(${value} IN (${numbers.map((n) => this.bind(n)).join(', ')}) AND ${isNumberType(type)})`);
    const strings = operands.filter((item): item is string => typeof item === 'string');
    if (strings.length > 0) parts.push(`(${value} IN (${strings.map((s) => this.bind(s)).join(', ')}) AND ${type} IS 'text')`);
    return disjunction(parts);
  }

  private range(operator: RangeOperator, value: string, type: string, operand: Scalar): string {
    // As in MongoDB, null is only "equal to itself" under ordering: $gte/$lte null match absent or null.
    if (operand === null) return operator === '$gte' || operator === '$lte' ? `${value} IS NULL` : '0';
    const typeCheck = typeof operand === 'number' ? isNumberType(type) : typeof operand === 'boolean' ? isBooleanType(type) : `${type} IS 'text'`;
    return `(${value} ${RANGE_OPERATORS[operator]} ${this.bind(operand)} AND ${typeCheck})`;
  }

  /** The array at `path` holds `operand` (json_each also walks objects, hence the caller's array check). */
  private element(path: string, operand: Scalar): string {
    return `EXISTS (SELECT 1 FROM json_each(body, '$.${path}') AS e WHERE ${this.equals('e.value', 'e.type', operand)})`;
  }
}

function conjunction(parts: readonly string[]): string {
  if (parts.length === 0) return '1';
  return parts.length === 1 ? (parts[0] ?? '1') : parts.map((part) => `(${part})`).join(' AND ');
}

function disjunction(parts: readonly string[]): string {
  if (parts.length === 0) return '0';
  return parts.length === 1 ? (parts[0] ?? '0') : `(${parts.map((part) => `(${part})`).join(' OR ')})`;
}
