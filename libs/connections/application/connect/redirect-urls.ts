/**
 * A connect session sends the user back only to a URL the operator allowed
 * (CONNECT_REDIRECT_URLS): the same origin (scheme, host, port) and the same path, or a path
 * under an allowed one that ends with `/`. The application may add its own query. No prefix
 * matching on strings (`https://app.example` would allow `https://app.example.evil.test`).
 */
export function allowedRedirect(candidate: string, allowed: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.hash !== '' || url.username !== '' || url.password !== '') return false;
  return allowed.some((entry) => {
    const rule = new URL(entry);
    if (rule.origin !== url.origin) return false;
    return rule.pathname.endsWith('/') ? url.pathname.startsWith(rule.pathname) : url.pathname === rule.pathname;
  });
}
