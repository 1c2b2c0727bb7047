/** The entries of `value` that are not undefined: "absent" and "left as it is" mean the same in a patch. */
export function definedFields<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
