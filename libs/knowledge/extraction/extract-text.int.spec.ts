import { extractText } from './extract-text';
import { rejection, utf8 } from './spec-support';

/** Text formats and unsupported types; PDF and DOCX are in extract-text-binary.int.spec.ts. */

describe('extractText: text and markdown', () => {
  it('strips a UTF-8 BOM and turns CRLF into LF, keeping the text as written', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('Line one\r\nLine  two\r\n')]);
    await expect(extractText({ fileName: 'notes.txt', bytes })).resolves.toEqual({
      text: 'Line one\nLine  two\n',
      format: 'text',
      mimeType: 'text/plain',
      title: null,
      pages: null,
    });
  });

  it('keeps markdown syntax', async () => {
    const result = await extractText({ fileName: 'README.md', bytes: utf8('# Title\r\n\r\n* item `code`\r\n') });
    expect(result).toMatchObject({ text: '# Title\n\n* item `code`\n', format: 'markdown', mimeType: 'text/markdown' });
  });

  it('rejects bytes that are not valid UTF-8', async () => {
    const error = await rejection(extractText({ fileName: 'latin1.txt', bytes: new Uint8Array([0x63, 0x61, 0x66, 0xe9]) }));
    expect(error.message).toMatch(/not valid UTF-8/);
  });

  it('rejects a text file that contains NUL bytes (a binary file with a text name)', async () => {
    const error = await rejection(extractText({ fileName: 'data.log', bytes: new Uint8Array([0x61, 0x00, 0x62]) }));
    expect(error.message).toMatch(/looks like a binary file/);
  });

  it('rejects a file with no text', async () => {
    const error = await rejection(extractText({ fileName: 'empty.txt', bytes: utf8(' \n\n') }));
    expect(error.message).toMatch(/contains no text/);
  });
});

describe('extractText: html', () => {
  const page = `<!doctype html><html><head><title>Tea &amp; Coffee</title>
    <style>.secret { color: red }</style><script>var tracking = "SCRIPT_TEXT";</script></head>
    <body><nav><a href="/">Home</a> <a href="/menu">NAV_LINK</a></nav>
    <p>Intro</p><h1>Green Tea</h1><p>Brew at <a href="https://example.com/temp">80 degrees</a>.</p>
    <p>Steep <b>three</b> minutes.</p><ul><li>Cup</li><li>Pot</li></ul><img src="cup.png" alt="IMAGE_ALT">
    <script>document.write("MORE_SCRIPT")</script></body></html>`;

  it('keeps headings and paragraphs as blocks, links as text, and the <title>', async () => {
    const result = await extractText({ fileName: 'tea.html', bytes: utf8(page) });
    expect(result).toEqual({
      // At most one blank line between blocks (html-to-text puts two before an <h1>).
      text: 'Intro\n\nGreen Tea\n\nBrew at 80 degrees.\n\nSteep three minutes.\n\n* Cup\n* Pot',
      format: 'html',
      mimeType: 'text/html',
      title: 'Tea & Coffee',
      pages: null,
    });
  });

  it('cuts a long <title> to 255 characters (the longest content name), never inside a surrogate pair', async () => {
    const long = await extractText({ fileName: 'long.html', bytes: utf8(`<title>${'t'.repeat(300)}</title><p>Body</p>`) });
    expect(long.title).toBe('t'.repeat(255));
    // An emoji (two UTF-16 units) at units 254-255 does not fit: the title ends before it.
    const emoji = await extractText({ fileName: 'emoji.html', bytes: utf8(`<title>${'t'.repeat(254)}😀 more</title><p>Body</p>`) });
    expect(emoji.title).toBe('t'.repeat(254));
  });

  it('drops scripts, styles, navigation, URLs and image placeholders', async () => {
    const { text } = await extractText({ fileName: 'tea.htm', bytes: utf8(page) });
    for (const absent of ['SCRIPT_TEXT', 'MORE_SCRIPT', 'secret', 'NAV_LINK', 'https://', 'IMAGE_ALT', '[']) {
      expect(text).not.toContain(absent);
    }
  });
});

describe('extractText: json and csv', () => {
  it('renders nested JSON as path: value lines', async () => {
    const json = JSON.stringify({ order: { id: 42, items: [{ name: 'Green tea' }, { name: 'Oolong', qty: 2 }] }, ok: true });
    const result = await extractText({ fileName: 'order.json', bytes: utf8(json) });
    expect(result).toMatchObject({ format: 'json', mimeType: 'application/json', title: null });
    expect(result.text).toBe(
      ['order.id: 42', 'order.items[0].name: Green tea', 'order.items[1].name: Oolong', 'order.items[1].qty: 2', 'ok: true'].join('\n'),
    );
  });

  it('rejects invalid JSON', async () => {
    const error = await rejection(extractText({ fileName: 'broken.json', bytes: utf8('{"a": 1,}') }));
    expect(error.message).toMatch(/"broken.json" is not valid JSON/);
  });

  it('parses quoted commas, line breaks and quotes, one line per row', async () => {
    const csv = 'name,notes,city\r\n"Smith, Jane","said ""hi""\r\ntwice",Lyon\r\nBob,,Paris\r\n';
    const result = await extractText({ fileName: 'people.csv', bytes: utf8(csv) });
    expect(result).toMatchObject({ format: 'csv', mimeType: 'text/csv' });
    expect(result.text).toBe('name: Smith, Jane; notes: said "hi" twice; city: Lyon\nname: Bob; city: Paris');
  });
});

describe('extractText: unsupported', () => {
  it('names the extension and the supported types', async () => {
    const error = await rejection(extractText({ fileName: 'photo.xyz', bytes: utf8('whatever') }));
    expect(error.message).toBe('Unsupported file type ".xyz"; supported: txt, md, html, json, csv, pdf, docx');
  });
});
