/** Select options for a filter: "any" (the empty value, no filter) and then each value as itself. */
export function anyOf<V extends string>(values: readonly V[]): { value: V | ''; label: string }[] {
  return [{ value: '', label: 'any' }, ...values.map((value) => ({ value, label: value }))];
}
