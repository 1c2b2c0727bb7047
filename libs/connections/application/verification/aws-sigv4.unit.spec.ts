/**
 * SigV4 against AWS's published examples: the "get-vanilla" cases of the Signature Version 4 test
 * suite (credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1, service "service") and the S3
 * header-signing examples of the S3 API reference (AKIAIOSFODNN7EXAMPLE, 2013-05-24, examplebucket).
 * Each step is asserted, so a failure says which one is wrong.
 */
import { createHash } from 'node:crypto';
import type { IntegrationRecord } from '@lore/connections/contracts';
import { CATALOG } from '../catalog/catalog-entries';
import { amzDate, signAwsSigV4, uriEncode } from './aws-sigv4';
import { buildVerificationRequest } from './verification-request';

const SUITE = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SUITE_SCOPE = { service: 'service', region: 'us-east-1' };
const SUITE_TIME = new Date('2015-08-30T12:36:00Z');
const S3_DOCS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const S3_TIME = new Date('2013-05-24T00:00:00Z');
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('signAwsSigV4', () => {
  it('reproduces get-vanilla step by step', () => {
    const signed = signAwsSigV4({ method: 'GET', url: 'https://example.amazonaws.com/', headers: {} }, SUITE, SUITE_SCOPE, SUITE_TIME);

    expect(signed.canonicalRequest).toBe(
      ['GET', '/', '', 'host:example.amazonaws.com', 'x-amz-date:20150830T123600Z', '', 'host;x-amz-date', EMPTY_SHA256].join('\n'),
    );
    // get-vanilla.sts: the hash of the canonical request above.
    expect(sha256(signed.canonicalRequest)).toBe('bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63');
    expect(signed.stringToSign).toBe(
      [
        'AWS4-HMAC-SHA256',
        '20150830T123600Z',
        '20150830/us-east-1/service/aws4_request',
        'bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
      ].join('\n'),
    );
    expect(signed.signature).toBe('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    expect(signed.headers).toEqual({
      'x-amz-date': '20150830T123600Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    });
  });

  it('sorts the query (get-vanilla-query-order-key-case)', () => {
    const signed = signAwsSigV4(
      { method: 'GET', url: 'https://example.amazonaws.com/?Param2=value2&Param1=value1', headers: {} },
      SUITE,
      SUITE_SCOPE,
      SUITE_TIME,
    );
    expect(signed.canonicalRequest.split('\n')[2]).toBe('Param1=value1&Param2=value2');
    expect(signed.signature).toBe('b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  it('signs S3 with the payload hash header and every given header (S3 "GET Object" example)', () => {
    const signed = signAwsSigV4(
      { method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/test.txt', headers: { Range: 'bytes=0-9' } },
      S3_DOCS,
      { service: 's3', region: 'us-east-1' },
      S3_TIME,
    );
    expect(signed.canonicalRequest).toBe(
      [
        'GET',
        '/test.txt',
        '',
        'host:examplebucket.s3.amazonaws.com',
        'range:bytes=0-9',
        `x-amz-content-sha256:${EMPTY_SHA256}`,
        'x-amz-date:20130524T000000Z',
        '',
        'host;range;x-amz-content-sha256;x-amz-date',
        EMPTY_SHA256,
      ].join('\n'),
    );
    expect(sha256(signed.canonicalRequest)).toBe('7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972');
    expect(signed.signature).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(signed.headers['x-amz-content-sha256']).toBe(EMPTY_SHA256);
  });

  it('reproduces the S3 "GET Bucket (List Objects)" example', () => {
    const signed = signAwsSigV4(
      { method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J', headers: {} },
      S3_DOCS,
      { service: 's3', region: 'us-east-1' },
      S3_TIME,
    );
    expect(signed.signature).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });

  it('sends and signs the session token of temporary credentials', () => {
    const signed = signAwsSigV4(
      { method: 'GET', url: 'https://example.amazonaws.com/', headers: {} },
      { ...SUITE, sessionToken: 'FQoGZXIvYXdzEXAMPLE' },
      SUITE_SCOPE,
      SUITE_TIME,
    );
    expect(signed.headers['x-amz-security-token']).toBe('FQoGZXIvYXdzEXAMPLE');
    expect(signed.headers['authorization']).toContain('SignedHeaders=host;x-amz-date;x-amz-security-token,');
  });

  it('encodes as RFC 3986 wants, and paths twice outside S3', () => {
    expect(uriEncode("a b!'()*~.-_/")).toBe('a%20b%21%27%28%29%2A~.-_%2F');
    const other = signAwsSigV4({ method: 'GET', url: 'https://example.amazonaws.com/a%20b', headers: {} }, SUITE, SUITE_SCOPE, SUITE_TIME);
    expect(other.canonicalRequest.split('\n')[1]).toBe('/a%2520b');
    const s3 = signAwsSigV4({ method: 'GET', url: 'https://b.s3.amazonaws.com/a%20b', headers: {} }, SUITE, { service: 's3', region: 'us-east-1' }, SUITE_TIME);
    expect(s3.canonicalRequest.split('\n')[1]).toBe('/a%20b');
    expect(amzDate(new Date('2025-06-01T09:08:07.654Z'))).toBe('20250601T090807Z');
  });
});

describe('buildVerificationRequest with aws_sigv4 (Bedrock)', () => {
  const bedrock = CATALOG.find((e) => e.id === 'bedrock') as IntegrationRecord;
  const method = bedrock.auth_methods.find((m) => m.id === 'access_key') as IntegrationRecord['auth_methods'][number];
  const credentials = { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
  const now = new Date('2025-06-01T12:00:00Z');

  it('signs the filled URL with the region from the config and the injected clock', () => {
    const request = buildVerificationRequest(method, { region: 'eu-west-1' }, credentials, undefined, now);
    if ('error' in request) throw new Error(request.error);
    expect(request.url).toBe('https://bedrock.eu-west-1.amazonaws.com/foundation-models?byOutputModality=TEXT');
    expect(request.headers?.['x-amz-date']).toBe('20250601T120000Z');
    expect(request.headers?.['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/20250601\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    // The same inputs sign the same way; the secret itself is never sent.
    const again = buildVerificationRequest(method, { region: 'eu-west-1' }, credentials, undefined, now);
    expect(again).toEqual(request);
    expect(JSON.stringify(request)).not.toContain(credentials.secret_access_key);
  });

  it('names what is missing', () => {
    expect(buildVerificationRequest(method, {}, credentials, undefined, now)).toEqual({ error: 'config.region is not set' });
    expect(buildVerificationRequest(method, { region: 'us-east-1' }, { access_key_id: 'AKIAIOSFODNN7EXAMPLE' }, undefined, now)).toEqual({
      error: 'credentials.secret_access_key is not set',
    });
  });
});
