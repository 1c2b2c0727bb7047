import { AppError } from '@lore/platform/kernel';

import { csvText, parseCsv } from './csv-text';

describe('parseCsv (RFC 4180)', () => {
  it('splits fields on commas and records on LF or CRLF, with or without a final line break', () => {
    expect(parseCsv('a,b\r\n1,2\n3,4')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
  });

  it('keeps commas and line breaks inside quoted fields', () => {
    expect(parseCsv('"x, y","line 1\nline 2"\n')).toEqual([['x, y', 'line 1\nline 2']]);
  });

  it('reads "" inside a quoted field as one quote', () => {
    expect(parseCsv('"say ""hi""",""""\n')).toEqual([['say "hi"', '"']]);
  });

  it('keeps empty fields, quoted or not', () => {
    expect(parseCsv('a,,"",b\n')).toEqual([['a', '', '', 'b']]);
  });

  it('keeps a quote inside an unquoted field as a character', () => {
    expect(parseCsv('5" disk,x\n')).toEqual([['5" disk', 'x']]);
  });

  it('rejects a quoted field that is never closed, naming its line', () => {
    expect(() => parseCsv('a,b\n1,"open\nmore', 'data.csv')).toThrow(
      new AppError('validation', '"data.csv" is not valid CSV: the quoted field opened on line 2 is never closed'),
    );
  });
});

describe('csvText', () => {
  it('writes each data row as header: value pairs, one line per row', () => {
    expect(csvText('name,city\nAda,London\nLinus,Helsinki\n', 'f.csv')).toBe('name: Ada; city: London\nname: Linus; city: Helsinki');
  });

  it('leaves out empty cells and blank rows, and names unheaded columns', () => {
    expect(csvText('name,,city\nAda,x,\n,,\nBob,,Paris,extra\n', 'f.csv')).toBe(
      'name: Ada; column 2: x\nname: Bob; city: Paris; column 4: extra',
    );
  });

  it('turns line breaks inside a cell into spaces so a row stays on one line', () => {
    expect(csvText('note\n"two\nlines"\n', 'f.csv')).toBe('note: two lines');
  });

  it('returns the column names of a header-only file', () => {
    expect(csvText('name,city\n', 'f.csv')).toBe('name, city');
  });
});
