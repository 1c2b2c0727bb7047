import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { docsHtml, swaggerUiAssetPath } from './docs-page';

describe('docsHtml', () => {
  it('loads Swagger UI from the local asset base, never a CDN', () => {
    const html = docsHtml('/openapi.json', '/docs/assets/');
    expect(html).toContain('href="/docs/assets/swagger-ui.css"');
    expect(html).toContain('src="/docs/assets/swagger-ui-bundle.js"');
    expect(html).toContain('url: "/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('cannot be broken out of by the URLs it embeds', () => {
    const html = docsHtml('/x</script><script>alert(1)</script>', '/a"b');
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('href="/a&quot;b/swagger-ui.css"');
  });
});

describe('swaggerUiAssetPath', () => {
  it('points at the installed swagger-ui-dist files', () => {
    const dir = swaggerUiAssetPath();
    expect(path.isAbsolute(dir)).toBe(true);
    expect(existsSync(path.join(dir, 'swagger-ui.css'))).toBe(true);
    expect(existsSync(path.join(dir, 'swagger-ui-bundle.js'))).toBe(true);
  });
});
