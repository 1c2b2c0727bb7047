/** Credential verification and OAuth 2.0 token upkeep for connections (see verify-connection.ts for the caller's contract). */
export { runVerification, NO_VERIFICATION_REASON, valueAt } from './verify-connection';
export type { VerificationInput, VerificationResult } from './verify-connection';
export { buildVerificationRequest, verificationOf, isRequestError } from './verification-request';
export { clientCredentialsToken, exchangeAuthorizationCode, jwtBearerToken, refreshAccessToken, tokenRequester } from './oauth-tokens';
export type { OAuthToken, TokenAnswerShape, TokenOutcome, TokenOptions } from './oauth-tokens';
export { accessTokenExpired, accessTokenExpiryMs, hasRefreshToken, jwtExpiryMs } from './token-expiry';
export { signAwsSigV4 } from './aws-sigv4';
export { maskSecrets, secretValues } from './templates';
