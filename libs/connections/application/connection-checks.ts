import { failedChecks, type Clock } from '@lore/platform/kernel';
import type { IntegrationRecord, AuthMethod } from '@lore/connections/contracts';
import type { LiveCredential } from '@lore/connections/domain';
import { findIntegration } from './catalog/catalog-entries';
import { validateConnection, type ConnectionValidationDeps } from './validation/connection-validator';


export const VALIDATION_FAILED = 'Connection validation failed';

/** What a create or an update asks to check against the catalog entry. */
export interface CheckRequest {
  readonly integrationType?: string | undefined;
  readonly authMethodId?: string | undefined;
  readonly config: Record<string, unknown>;
  /** New values; absent when an existing credential is reused or kept. */
  readonly credentials?: Record<string, unknown> | undefined;
  /** The credential reused (`credential_id`). */
  readonly existing?: LiveCredential | null | undefined;
  /** A credential_id was given (it may have failed its own check, listed in `errors`). */
  readonly reuseRequested?: boolean;
  /** Checks that already failed before the entry's (the credential reused): listed with the rest. */
  readonly errors?: readonly string[];
}

export interface Checked {
  readonly entry: IntegrationRecord;
  readonly method: AuthMethod;
}

/** The catalog entry a connection names, or the 400 that lists every other check too. */
export function entryOf(integration: string): IntegrationRecord {
  const entry = findIntegration(integration);
  if (entry === undefined) throw failedChecks(VALIDATION_FAILED, [`integration: unknown integration "${integration}"; GET /api/v1/integrations lists the catalog`]);
  return entry;
}

/**
 * Every check of SPEC §4.5 at once: the credential reused (whose, which integration, which
 * method), then the entry's schemas and OAuth2 rules (the validator). Throws `failed_checks`
 * (400) listing them all; answers the entry and the method that applies.
 */
export async function checkConnection(entry: IntegrationRecord, request: CheckRequest, deps: { readonly clock: Clock; readonly requestToken?: ConnectionValidationDeps['requestToken'] }): Promise<Checked> {
  const errors: string[] = [...(request.errors ?? [])];
  const existing = request.existing ?? null;
  let authMethodId = request.authMethodId;
  if (existing !== null && request.credentials === undefined) {
    if (existing.integration !== entry.id) errors.push(`credential_id: belongs to integration "${existing.integration}", not "${entry.id}"`);
    if (authMethodId !== undefined && authMethodId !== existing.authMethodId) errors.push(`auth_method_id: the credential is for method "${existing.authMethodId}", not "${authMethodId}"`);
    authMethodId ??= existing.authMethodId;
  }
  const result = await validateConnection(
    entry,
    {
      ...(request.integrationType === undefined ? {} : { integration_type: request.integrationType }),
      ...(authMethodId === undefined ? {} : { auth_method_id: authMethodId }),
      config: request.config,
      ...(request.credentials === undefined ? {} : { credentials: request.credentials }),
      credential_provided: (existing !== null || request.reuseRequested === true) && request.credentials === undefined,
    },
    { now: deps.clock.now(), ...(deps.requestToken === undefined ? {} : { requestToken: deps.requestToken }) },
  );
  errors.push(...result.errors);
  const method = entry.auth_methods.find((m) => m.id === result.authMethodId);
  if (errors.length > 0 || method === undefined) throw failedChecks(VALIDATION_FAILED, errors);
  return { entry, method };
}
