import { keywordTerms, keywordTokens, queryTokens, MAX_QUERY_TERMS } from './keyword-terms';
import { porterStem } from './porter-stemmer';

/** Pairs from Porter's published vocabulary and output (tartarus.org/martin/PorterStemmer). */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['caresses', 'caress'],
  ['ponies', 'poni'],
  ['ties', 'ti'],
  ['caress', 'caress'],
  ['cats', 'cat'],
  ['feed', 'feed'],
  ['agreed', 'agre'],
  ['plastered', 'plaster'],
  ['bled', 'bled'],
  ['motoring', 'motor'],
  ['sing', 'sing'],
  ['conflated', 'conflat'],
  ['troubled', 'troubl'],
  ['sized', 'size'],
  ['hopping', 'hop'],
  ['tanned', 'tan'],
  ['falling', 'fall'],
  ['hissing', 'hiss'],
  ['fizzed', 'fizz'],
  ['failing', 'fail'],
  ['filing', 'file'],
  ['happy', 'happi'],
  ['sky', 'sky'],
  ['relational', 'relat'],
  ['conditional', 'condit'],
  ['rational', 'ration'],
  ['valenci', 'valenc'],
  ['digitizer', 'digit'],
  ['conformabli', 'conform'],
  ['radicalli', 'radic'],
  ['differentli', 'differ'],
  ['vileli', 'vile'],
  ['analogousli', 'analog'],
  ['vietnamization', 'vietnam'],
  ['predication', 'predic'],
  ['operator', 'oper'],
  ['feudalism', 'feudal'],
  ['decisiveness', 'decis'],
  ['hopefulness', 'hope'],
  ['callousness', 'callous'],
  ['formaliti', 'formal'],
  ['sensitiviti', 'sensit'],
  ['sensibiliti', 'sensibl'],
  ['triplicate', 'triplic'],
  ['formative', 'form'],
  ['formalize', 'formal'],
  ['electriciti', 'electr'],
  ['electrical', 'electr'],
  ['hopeful', 'hope'],
  ['goodness', 'good'],
  ['revival', 'reviv'],
  ['allowance', 'allow'],
  ['inference', 'infer'],
  ['airliner', 'airlin'],
  ['gyroscopic', 'gyroscop'],
  ['adjustable', 'adjust'],
  ['defensible', 'defens'],
  ['irritant', 'irrit'],
  ['replacement', 'replac'],
  ['adjustment', 'adjust'],
  ['dependent', 'depend'],
  ['adoption', 'adopt'],
  ['homologou', 'homolog'],
  ['communism', 'commun'],
  ['activate', 'activ'],
  ['angulariti', 'angular'],
  ['homologous', 'homolog'],
  ['effective', 'effect'],
  ['bowdlerize', 'bowdler'],
  ['probate', 'probat'],
  ['rate', 'rate'],
  ['cease', 'ceas'],
  ['controll', 'control'],
  ['roll', 'roll'],
  ['running', 'run'],
  ['runs', 'run'],
  ['generalizations', 'gener'],
  ['analogies', 'analog'],
  ['possibly', 'possibl'],
];

describe('porterStem', () => {
  it.each(PAIRS)('%s → %s', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it('leaves tokens shorter than 3 or longer than 64 bytes alone', () => {
    expect(porterStem('is')).toBe('is');
    const long = `${'a'.repeat(62)}ing`;
    expect(porterStem(long)).toBe(long);
    expect(porterStem(`${'ba'.repeat(29)}ing`)).toBe('ba'.repeat(29));
  });

  it('treats non-ASCII bytes as consonants and never breaks a character', () => {
    // ö and ß are consonants here, so "größ" has no vowel-consonant sequence and keeps its e.
    expect(porterStem('größes')).toBe('größe');
    expect(porterStem('日本語')).toBe('日本語');
  });
});

describe('keyword terms', () => {
  it('splits on everything but letters, digits and marks, folds case and diacritics', () => {
    expect(keywordTokens('Hello, WORLD! Café-au-lait "quoted" a_b x1 ÅNGSTRÖM 東京')).toEqual(['hello', 'world', 'cafe', 'au', 'lait', 'quoted', 'a', 'b', 'x1', 'angstrom', '東京']);
    expect(keywordTerms('The runners were running')).toEqual(['the', 'runner', 'were', 'run']);
  });

  it('query tokens: distinct by stem, first occurrence first, bounded', () => {
    expect(queryTokens('Running runs RUN walk')).toEqual(['running', 'walk']);
    expect(queryTokens(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(MAX_QUERY_TERMS);
    expect(queryTokens('"*^():-+')).toEqual([]);
  });
});
