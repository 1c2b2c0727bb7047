/** Cuts a text into pieces of at most `max` UTF-16 units, never inside a surrogate pair. */
export function textParts(text: string, max: number): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + max);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}
