type JsonObject = Record<string, unknown>;

/**
 * The configuration as a JSON merge patch (RFC 7386, what `PATCH /connections/{id}` takes):
 * the form holds the whole new configuration, so a key it no longer has is sent as `null`,
 * which removes it (sending only the new object would keep every cleared optional field).
 */
export function configPatch(before: JsonObject, after: JsonObject): JsonObject {
  const patch: JsonObject = { ...after };
  for (const key of Object.keys(before)) if (!(key in after) || after[key] === undefined) patch[key] = null;
  return patch;
}
