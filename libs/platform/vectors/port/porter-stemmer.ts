/**
 * The Porter (1980) stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it, so that
 * engines which need terms computed in TypeScript (Qdrant's sparse BM25 vectors) index the
 * same stems as the embedded adapter's FTS5 tables. Written here from the published
 * algorithm, following FTS5's reading of it:
 * - it works on the UTF-8 bytes of a token; every non-ASCII byte counts as a consonant;
 * - tokens shorter than 3 or longer than 64 bytes are left alone;
 * - within a step, the first suffix the word ends with decides, even when its condition fails;
 * - (*v*) treats `y` as a vowel anywhere but at the start; `logi → log` and `bli → ble` (step 2)
 *   as in Porter's own reference implementation.
 * `porter-stemmer.int.spec.ts` (SQLite adapter) checks it against FTS5 on a vocabulary.
 */

const MIN_BYTES = 3;
const MAX_BYTES = 64;

type Rule = readonly [suffix: string, replacement: string];

const STEP2: readonly Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['logi', 'log'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
];

const STEP3: readonly Rule[] = [
  ['ical', 'ic'],
  ['ness', ''],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ful', ''],
  ['ative', ''],
  ['alize', 'al'],
];

const STEP4: readonly string[] = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

function isVowel(c: string, yIsVowel: boolean): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');
}

/** consonant[i]: `y` is a vowel after a consonant, a consonant otherwise. */
function consonants(word: string, length: number): boolean[] {
  const out: boolean[] = [];
  for (let i = 0; i < length; i++) out.push(!isVowel(word.charAt(i), i > 0 && out[i - 1] === true));
  return out;
}

/** Porter's m: the number of vowel-consonant sequences in the first `length` characters. */
function measure(word: string, length: number): number {
  const cons = consonants(word, length);
  let m = 0;
  for (let i = 1; i < length; i++) if (cons[i] && !cons[i - 1]) m++;
  return m;
}

/** (*v*): the stem holds a vowel (FTS5 counts `y` as one anywhere but at position 0). */
function hasVowel(word: string, length: number): boolean {
  for (let i = 0; i < length; i++) if (isVowel(word.charAt(i), i > 0)) return true;
  return false;
}

/** (*o): ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(word: string, length: number): boolean {
  const last = word.charAt(length - 1);
  if (length < 3 || last === 'w' || last === 'x' || last === 'y') return false;
  const cons = consonants(word, length);
  return cons[length - 3] === true && cons[length - 2] === false && cons[length - 1] === true;
}

/** The first rule whose suffix ends the word (with something before it), or undefined. */
function firstSuffix<T extends string | Rule>(word: string, rules: readonly T[]): T | undefined {
  return rules.find((rule) => {
    const suffix = typeof rule === 'string' ? rule : rule[0];
    return word.length > suffix.length && word.endsWith(suffix);
  });
}

function step1a(word: string): string {
  if (!word.endsWith('s')) return word;
  if (word.endsWith('es')) {
    if ((word.length > 4 && word.endsWith('sses')) || (word.length > 3 && word.endsWith('ies'))) return word.slice(0, -2);
    return word.slice(0, -1);
  }
  return word.endsWith('ss') ? word : word.slice(0, -1);
}

function step1b(word: string): string {
  let stem: string;
  if (word.length > 3 && word.endsWith('eed')) {
    return measure(word, word.length - 3) > 0 ? word.slice(0, -1) : word;
  } else if (word.length > 2 && word.endsWith('ed') && hasVowel(word, word.length - 2)) {
    stem = word.slice(0, -2);
  } else if (word.length > 3 && word.endsWith('ing') && hasVowel(word, word.length - 3)) {
    stem = word.slice(0, -3);
  } else {
    return word;
  }
  for (const [suffix, replacement] of [['at', 'ate'], ['bl', 'ble'], ['iz', 'ize']] as const) {
    if (stem.length > 2 && stem.endsWith(suffix)) return stem.slice(0, -suffix.length) + replacement;
  }
  const last = stem.charAt(stem.length - 1);
  if (stem.length >= 2 && !isVowel(last, false) && last !== 'l' && last !== 's' && last !== 'z' && last === stem.charAt(stem.length - 2)) {
    return stem.slice(0, -1);
  }
  if (measure(stem, stem.length) === 1 && endsCvc(stem, stem.length)) return `${stem}e`;
  return stem;
}

function step1c(word: string): string {
  return word.endsWith('y') && hasVowel(word, word.length - 1) ? `${word.slice(0, -1)}i` : word;
}

function replaceIf(word: string, rules: readonly Rule[], minMeasure: number): string {
  const rule = firstSuffix(word, rules);
  if (rule === undefined) return word;
  const stem = word.length - rule[0].length;
  return measure(word, stem) >= minMeasure ? word.slice(0, stem) + rule[1] : word;
}

function step4(word: string): string {
  const suffix = firstSuffix(word, STEP4);
  if (suffix === undefined) return word;
  const stem = word.length - suffix.length;
  if (measure(word, stem) < 2) return word;
  if (suffix === 'ion' && !/[st]$/.test(word.slice(0, stem))) return word;
  return word.slice(0, stem);
}

function step5(word: string): string {
  let out = word;
  if (out.endsWith('e')) {
    const m = measure(out, out.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(out, out.length - 1))) out = out.slice(0, -1);
  }
  if (out.length > 1 && out.endsWith('ll') && measure(out, out.length - 1) > 1) out = out.slice(0, -1);
  return out;
}

/** The stem of one lower-case token (as produced by `keywordTokens`). */
export function porterStem(token: string): string {
  // One character per UTF-8 byte, as FTS5 sees the token; suffixes are ASCII, so only ASCII changes.
  const bytes = Buffer.from(token, 'utf8');
  if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) return token;
  let word = bytes.toString('latin1');
  word = step1b(step1a(word));
  word = step1c(word);
  word = replaceIf(word, STEP2, 1);
  word = replaceIf(word, STEP3, 1);
  word = step4(word);
  word = step5(word);
  return Buffer.from(word, 'latin1').toString('utf8');
}
