import * as path from 'node:path';

/** Escapes text for an HTML attribute or element body. */
function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A JS string literal that cannot close the surrounding <script> element. */
function scriptString(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/**
 * The `/docs` page. Swagger UI's files come from the locally installed
 * `swagger-ui-dist`, served by the gateway under `assetBase`: the service must render
 * its docs on machines without internet access, so nothing is loaded from a CDN.
 */
export function docsHtml(openapiUrl: string, assetBase: string, title = 'Lore API - Swagger UI'): string {
  const base = assetBase.endsWith('/') ? assetBase.slice(0, -1) : assetBase;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" type="text/css" href="${escapeHtml(`${base}/swagger-ui.css`)}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${escapeHtml(`${base}/swagger-ui-bundle.js`)}"></script>
<script>
window.ui = SwaggerUIBundle({
  url: ${scriptString(openapiUrl)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  layout: 'BaseLayout'
});
</script>
</body>
</html>
`;
}

/** Folder holding swagger-ui.css and swagger-ui-bundle.js, for the gateway's static file route. */
export function swaggerUiAssetPath(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}
