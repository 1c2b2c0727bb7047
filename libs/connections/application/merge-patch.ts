type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * JSON Merge Patch (RFC 7386), how PATCH changes a connection's `config`: a key set to null is
 * removed, an object merges into an object, anything else replaces. New objects, never mutation.
 */
export function mergePatch(target: Readonly<JsonObject>, patch: Readonly<JsonObject>): JsonObject {
  const result: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (isObject(value)) result[key] = mergePatch(isObject(result[key]) ? result[key] : {}, value);
    else result[key] = value;
  }
  return result;
}
