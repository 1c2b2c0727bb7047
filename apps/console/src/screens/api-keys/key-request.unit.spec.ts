import { describe, expect, it } from '@jest/globals';
import { createKeyBody, listOf } from './key-request';
import { issuesByField } from '../shared/api-issues';

describe('the API key create form', () => {
  it('sends every list explicitly (empty lists included) and the expiry as an ISO instant', () => {
    const body = createKeyBody({ label: ' ci ', permissions: new Set(['memories:read']), collections: 'col_1,\ncol_2\n', ipRules: '10.0.0.0/8\n\n', expiresAt: '2030-01-02T03:04' });
    expect(body).toEqual({ label: 'ci', permissions: ['memories:read'], collections: ['col_1', 'col_2'], ip_whitelist: ['10.0.0.0/8'], expires_at: new Date('2030-01-02T03:04').toISOString() });
    expect(createKeyBody({ label: 'x', permissions: new Set(), collections: '', ipRules: '', expiresAt: '' })).not.toHaveProperty('expires_at');
    expect(listOf(' a , ,b ')).toEqual(['a', 'b']);
  });

  it('shows a 422 issue under the field it names and anything else above the form', () => {
    const error = { detail: [{ loc: ['body', 'ip_whitelist', 0], msg: 'Not an IP address or CIDR range' }, { loc: ['body'], msg: 'Unknown field' }] };
    expect(issuesByField(error, ['ip_whitelist'])).toEqual({ ip_whitelist: ['0: Not an IP address or CIDR range'], '': ['Unknown field'] });
    expect(issuesByField({ detail: 'This API key lacks the permission api_keys:write' }, ['label'])).toEqual({ '': ['This API key lacks the permission api_keys:write'] });
    expect(issuesByField(undefined, ['label'])).toEqual({});
  });
});
