/** Shared by every adapter's datetime comparisons (filters), so that they agree on what parses. */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Epoch milliseconds of an ISO 8601 / RFC 3339 date or datetime (`2024-05-01`,
 * `2024-05-01T12:00`, `2024-05-01 12:00:00.5+02:00`, …; no zone means UTC), or null.
 * Shared by every adapter's datetime comparisons so that they agree on what parses.
 */
export function parseDatetime(text: string): number | null {
  const m = DATETIME.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  const ms = frac === '' ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  let offset = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (hours > 23 || minutes > 59) return null;
    offset = sign * (hours * 60 + minutes);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset * 60_000;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
