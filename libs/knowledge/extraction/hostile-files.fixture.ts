import { crc32, deflateRawSync } from 'node:zlib';

/** Hostile (and normal) files built in code for the extraction specs: no binary files in the repository. */

/** `<div>` nested `depth` levels around one word. */
export function deepHtml(depth: number): Uint8Array {
  return utf8(`<!doctype html><html><body>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}</body></html>`);
}

/** Arrays nested `depth` levels around one number. */
export function deepJson(depth: number): Uint8Array {
  return utf8(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
}

export const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

export interface ZipEntrySpec {
  readonly name: string;
  readonly data: Buffer;
  /** The uncompressed size written in the headers, when it should lie. */
  readonly declaredSize?: number;
}

/**
 * A ZIP of deflated entries, written by hand (local headers, data, central directory, end
 * record) so that a test can make entries of any size fast (zlib is native) and make the
 * directory lie about them.
 */
export function zip(entries: readonly ZipEntrySpec[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const compressed = deflateRawSync(entry.data);
    const size = entry.declaredSize ?? entry.data.length;
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A DOCX whose document is `paragraphs`, then `padding` bytes of spaces inside the last one (a bomb when large). */
export function docx(paragraphs: readonly string[], options: { padding?: number; declaredSize?: number } = {}): Uint8Array {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:p><w:r><w:t xml:space="preserve">`;
  const tail = '</w:t></w:r></w:p></w:body></w:document>';
  const document = Buffer.concat([Buffer.from(head), Buffer.alloc(options.padding ?? 0, ' '), Buffer.from(tail)]);
  return zip([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(RELS) },
    { name: 'word/document.xml', data: document, ...(options.declaredSize === undefined ? {} : { declaredSize: options.declaredSize }) },
  ]);
}

/** A minimal PDF with one page per entry of `pages`. */
export function pdf(pages: readonly string[]): Uint8Array {
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const add = (body: string): number => objects.push(body);
  const kids = pages.map((text) => {
    const ops = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
    const content = add(`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`);
    return add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`);
  });
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let text = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = text.length;
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xrefAt = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(text, 'latin1'));
}
