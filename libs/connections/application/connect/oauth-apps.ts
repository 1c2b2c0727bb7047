import type { AuthMethod, IntegrationRecord, OAuthApp } from '@lore/connections/contracts';
import { fillTemplate, withDefaults } from '../verification/templates';

/**
 * Lore's registered OAuth app (CONNECTION_OAUTH_CLIENTS) is sent only to the token endpoint it
 * is registered for: the catalog's, filled with the app's own `config` (a self-hosted GitLab's
 * `base_url`) over the entry's defaults. When a user's configuration moves the endpoint
 * elsewhere, the operator's client secret would go to a host the user picked: no client then.
 */
export function operatorClient(entry: IntegrationRecord, method: AuthMethod, config: Record<string, unknown>, app: OAuthApp | undefined): OAuthApp | undefined {
  const template = method.oauth2?.token_url;
  if (app === undefined || template === undefined) return undefined;
  const actual = fillTemplate(template, { config, credentials: {} }, 'url');
  const intended = fillTemplate(template, { config: withDefaults(entry.config_schema, { ...(app.config ?? {}) }), credentials: {} }, 'url');
  if ('error' in actual || 'error' in intended) return undefined;
  try {
    return new URL(actual.text).origin === new URL(intended.text).origin ? app : undefined;
  } catch {
    return undefined;
  }
}
