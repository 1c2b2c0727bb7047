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
import { assertFieldPath, isScalar, scalarOperand, scalarsOperand } from '@lore/platform/documents/port';
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

/** Collects bound parameters in the order their placeholders appear in the SQL text. */
export class SqliteQueryTranslator {
  readonly params: SqlValue[] = [];

  bind(value: Scalar): string {
    // better-sqlite3 refuses booleans; JSON booleans read back from json_extract as 1 and 0.
    this.params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    return '?';
  }

  filter(filter: Filter | undefined): string {
    if (filter === undefined) return '1';
    if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw new Error('a filter must be an object');
    const parts: string[] = [];
    for (const [key, condition] of Object.entries(filter)) {
      if (condition === undefined) continue;
      if (key === '$or') {
        parts.push(this.or(condition));
        continue;
      }
      assertFieldPath(key);
      parts.push(this.field(key, condition));
    }
    return conjunction(parts);
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

  private or(condition: unknown): string {
    if (!Array.isArray(condition)) throw new Error('$or takes an array of filters');
    return disjunction((condition as unknown[]).map((sub) => this.filter(sub as Filter)));
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
