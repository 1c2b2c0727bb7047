/**
 * Proves a connection's credentials against the vendor: obtains a token when the method's grant is
 * Lore's to run (client_credentials, jwt_bearer), sends the method's verification request through
 * the egress, and judges the answer (`expect_status`, then `expect_json`).
 *
 * Contract with the caller, for authorization_code methods (the user's own tokens):
 * - Before calling, the caller refreshes a token that `accessTokenExpired` says is (nearly)
 *   expired, with `refreshAccessToken`, and stores the rotated tokens.
 * - If the vendor still answers 401 and `hasRefreshToken(credentials)`, the result is
 *   `{ outcome: 'error', httpStatus: 401 }`: the caller may refresh once and call again. A second
 *   401, or a refresh answering `invalidGrant`, means the user must reconnect.
 * - Without a refresh token, an expired token or a 401 is reported as `outcome: 'expired'`.
 *
 * Every reason is masked: no credential value (the method's secret fields, an obtained token, an
 * assertion) can appear in it, whatever the vendor or the egress said.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AuthMethod, IntegrationRecord } from '@lore/connections/contracts';
import type { Egress, OutboundResponse } from '@lore/platform/egress/port';
import { DEFAULT_TIMEOUT_MS, describeEgressFailure, hostOf } from './egress-failure';
import type { OAuthToken } from './oauth-tokens';
import { clientCredentialsToken, jwtBearerToken } from './oauth-tokens';
import type { JsonObject } from './templates';
import { isObject, maskSecrets, secretValues, withDefaults } from './templates';
import { accessTokenExpired, hasRefreshToken } from './token-expiry';
import type { VerificationSpec } from './verification-request';
import { buildVerificationRequest, verificationOf } from './verification-request';
import { valueAt } from './json-pointer';

export { valueAt } from './json-pointer';

export interface VerificationInput {
  readonly entry: IntegrationRecord;
  readonly method: AuthMethod;
  readonly config: JsonObject;
  readonly credentials: JsonObject;
  readonly egress: Egress;
  readonly now: Date;
  /** Deadline of each request (token, verification); default 10 s. */
  readonly timeoutMs?: number;
}

export interface VerificationResult {
  readonly outcome: 'active' | 'error' | 'expired';
  readonly reason: string | null;
  /** The vendor's status (the token endpoint's when getting a token failed); null when no answer came. */
  readonly httpStatus: number | null;
  /** The verification request's round trip when it was answered, else the time spent until the failure. */
  readonly latencyMs: number;
  /** The token obtained by a client_credentials or jwt_bearer grant, for the caller to reuse until it expires. */
  readonly token?: OAuthToken;
}

export const NO_VERIFICATION_REASON =
  'no verification request for this authentication method; configuration and credentials were validated at creation';

/** Large enough for a vendor's list answer (models, an OpenAPI document); only the status and a pointer are read. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Why a 2xx answer does not prove the credential (`expect_json`), or undefined when it does. */
function jsonMismatch(spec: VerificationSpec, response: OutboundResponse): string | undefined {
  const expected = spec.expect_json;
  if (!expected) return undefined;
  const host = hostOf(response.url);
  let document: unknown;
  try {
    document = JSON.parse(response.body) as unknown;
  } catch {
    return `expected a JSON answer from ${host}`;
  }
  const actual = valueAt(document, expected.pointer);
  if (isDeepStrictEqual(actual, expected.equals)) return undefined;
  const got = actual === undefined ? 'it is absent' : typeof actual === 'object' ? undefined : `got ${JSON.stringify(actual)}`;
  // Slack-style APIs put the reason next to the flag: `{"ok": false, "error": "invalid_auth"}`.
  const error = isObject(document) && typeof document['error'] === 'string' ? document['error'].slice(0, 100) : undefined;
  const detail = [got, error && `error ${JSON.stringify(error)}`].filter(Boolean).join(', ');
  return `expected ${expected.pointer} to equal ${JSON.stringify(expected.equals)} in the answer from ${host}${detail ? ` (${detail})` : ''}`;
}

export async function runVerification(input: VerificationInput): Promise<VerificationResult> {
  const { entry, method, egress, now } = input;
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  // Defaults of the schemas apply, as they did when the connection was validated (health_path "/", …).
  const config = withDefaults(entry.config_schema, input.config);
  const credentials = withDefaults(method.fields, input.credentials);
  const secrets = secretValues(method, input.credentials);
  let token: OAuthToken | undefined;

  const finish = (outcome: VerificationResult['outcome'], reason: string | null, httpStatus: number | null, latencyMs?: number): VerificationResult => ({
    outcome,
    reason: reason === null ? null : maskSecrets(reason, token ? [...secrets, token.access_token] : secrets),
    httpStatus,
    latencyMs: latencyMs ?? Math.round(performance.now() - started),
    ...(token ? { token } : {}),
  });

  const spec = verificationOf(method);
  if (!spec) return finish('active', NO_VERIFICATION_REASON, null);

  const grant = method.type === 'oauth2' ? method.oauth2?.grant_type : undefined;
  if (grant === 'client_credentials' || grant === 'jwt_bearer') {
    const options = { timeoutMs };
    const got =
      grant === 'client_credentials'
        ? await clientCredentialsToken(method, config, credentials, egress, now, options)
        : await jwtBearerToken(method, config, credentials, egress, now, options);
    if (!got.ok) return finish('error', `could not obtain an access token: ${got.error}`, got.status);
    token = got.token;
  }
  const userTokens = grant === 'authorization_code';
  if (userTokens && !hasRefreshToken(credentials) && accessTokenExpired(credentials, now, 0)) {
    return finish('expired', 'the access token has expired and there is no refresh token; reconnect the account', null);
  }

  const request = buildVerificationRequest(method, config, credentials, token, now);
  if ('error' in request) return finish('error', request.error, null);

  let response: OutboundResponse;
  try {
    response = await egress.request({ ...request, timeoutMs, maxResponseBytes: MAX_RESPONSE_BYTES });
  } catch (error) {
    return finish('error', describeEgressFailure(error, timeoutMs), null);
  }

  const host = hostOf(response.url);
  if (!spec.expect_status.includes(response.status)) {
    if (response.status === 401 && userTokens && !hasRefreshToken(credentials)) {
      return finish('expired', `HTTP 401 from ${host}: the access token was refused and there is no refresh token; reconnect the account`, 401, response.elapsedMs);
    }
    return finish('error', `HTTP ${response.status} from ${host} (expected ${spec.expect_status.join(' or ')})`, response.status, response.elapsedMs);
  }
  const mismatch = jsonMismatch(spec, response);
  if (mismatch) return finish('error', mismatch, response.status, response.elapsedMs);
  return finish('active', null, response.status, response.elapsedMs);
}
