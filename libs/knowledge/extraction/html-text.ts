import { convert } from 'html-to-text';
import type { HtmlToTextOptions } from 'html-to-text';

import { tidyBlocks } from './utf8-text';

/**
 * Readable text of an HTML page, for chunking and search: block structure (headings,
 * paragraphs, list items) survives as line breaks, and whatever is not content does not reach
 * the index. Scripts, styles and navigation are dropped, links keep their text but not their
 * URLs (a URL is noise to embeddings), images leave no "[alt]" placeholders, and headings keep
 * their case (html-to-text upper-cases them by default, which would distort the text).
 */
const SKIPPED = ['script', 'style', 'noscript', 'template', 'nav', 'svg', 'iframe', 'img', 'picture', 'video', 'audio'];

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'a', options: { ignoreHref: true } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
};

/** Only the text inside tags; used for the title, where block formatting is not wanted. */
const INLINE: HtmlToTextOptions = { wordwrap: false, selectors: [{ selector: '*', format: 'inline' }] };

export interface HtmlText {
  readonly text: string;
  readonly title: string | null;
}

export function htmlText(html: string): HtmlText {
  return { text: tidyBlocks(convert(html, OPTIONS)), title: htmlTitle(html) };
}

/**
 * The document's <title>. html-to-text renders the body only, so the title is found separately;
 * it is looked for before <body> so that an inline SVG's <title> is not mistaken for it.
 * Running it through html-to-text decodes entities such as &amp;.
 */
function htmlTitle(html: string): string | null {
  const bodyAt = html.search(/<body[\s>]/i);
  const head = bodyAt === -1 ? html : html.slice(0, bodyAt);
  const inner = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(head)?.[1];
  if (inner === undefined) return null;
  const title = convert(inner, INLINE).replace(/\s+/g, ' ').trim();
  return title === '' ? null : title;
}
