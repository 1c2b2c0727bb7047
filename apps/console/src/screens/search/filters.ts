/** One condition of the filter form: a field, an operator of Lore's filter grammar, and a value as typed. */
export interface FilterRow {
  readonly field: string;
  readonly operator: Operator;
  readonly value: string;
}

export const OPERATORS = ['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists', '$contains'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Fields the grammar names directly; anything else is read as `metadata.<key>`. */
const DIRECT_FIELDS = new Set(['content_id', 'source', 'tags', 'chunk_index']);

/** A typed value: JSON when it parses (numbers, booleans, quoted strings), else the text itself. */
function typed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function condition(row: FilterRow): Record<string, unknown> {
  const field = DIRECT_FIELDS.has(row.field) || row.field.startsWith('metadata.') ? row.field : `metadata.${row.field}`;
  const text = row.value.trim();
  const value = row.operator === '$in' || row.operator === '$nin' ? text.split(',').map((part) => typed(part.trim())) : row.operator === '$exists' ? text !== 'false' : typed(text);
  return { [field]: { [row.operator]: value } };
}

/**
 * The `filters` object of a search request for the form's rows (every row must hold: `$and`),
 * or null without any. Rows without a field are left out. The API validates the rest and
 * answers a 422 naming the part it refuses.
 */
export function buildFilters(rows: readonly FilterRow[]): Record<string, unknown> | null {
  const conditions = rows.filter((row) => row.field.trim() !== '').map(condition);
  if (conditions.length === 0) return null;
  return conditions.length === 1 ? (conditions[0] ?? null) : { $and: conditions };
}
