import { describe, expect, it } from '@jest/globals';
import type { Integration } from '@lore/client';
import { apiErrorsToFields, authMethodOf, connectionFormSchema, connectionUiSchema, credentialsToSend } from './connection-form-schema';
import { configPatch } from './config-patch';

const entry = {
  id: 'rest-api',
  name: 'Generic REST API',
  config_schema: { type: 'object', properties: { base_url: { type: 'string', format: 'uri' }, region: { type: 'string' } }, required: ['base_url'] },
  default_auth_method_id: 'bearer',
  auth_methods: [
    { id: 'bearer', type: 'api_key', label: 'Bearer', fields: { type: 'object', properties: { token: { type: 'string', minLength: 1 } }, required: ['token'] }, secret_fields: ['token'], required_config: ['region'] },
    { id: 'none', type: 'none', label: 'None', fields: { type: 'object', properties: {} }, secret_fields: [] },
  ],
} as unknown as Integration;

describe('the connection form built from a catalog entry', () => {
  it('holds the entry config schema, with the fields the auth method requires of it, and the method credentials', () => {
    const schema = connectionFormSchema(entry, authMethodOf(entry, undefined), 'create') as { properties: Record<string, { required?: string[]; title?: string }> };
    expect(schema.properties['config']?.required).toEqual(['base_url', 'region']);
    expect(schema.properties['credentials']?.required).toEqual(['token']);
    expect(connectionUiSchema(authMethodOf(entry, 'bearer'))['credentials']).toEqual({ token: { 'ui:widget': 'password', 'ui:autocomplete': 'new-password' } });
  });

  it('has no credentials group for a method without fields, and optional credentials when editing', () => {
    expect((connectionFormSchema(entry, authMethodOf(entry, 'none'), 'create') as { properties: object }).properties).not.toHaveProperty('credentials');
    const edit = connectionFormSchema(entry, authMethodOf(entry, 'bearer'), 'edit') as { properties: Record<string, { required?: string[] }> };
    expect(edit.properties['credentials']?.required).toEqual([]);
    expect(credentialsToSend({ credentials: { token: '' } }, 'edit')).toBeUndefined();
    expect(credentialsToSend({ credentials: { token: 'abc' } }, 'edit')).toEqual({ token: 'abc' });
  });

  it('places every check the API refused under the field it names, and keeps the others for the banner', () => {
    const placed = apiErrorsToFields({ message: 'Connection validation failed', errors: ['config.base_url: must be a valid URL (format uri)', 'credentials.token: is required', 'auth_method_id: unknown method'] });
    expect(placed.errors).toEqual({ config: { base_url: { __errors: ['must be a valid URL (format uri)'] } }, credentials: { token: { __errors: ['is required'] } } });
    expect(placed.unplaced).toEqual(['auth_method_id: unknown method']);
    expect(apiErrorsToFields([{ loc: ['body', 'label'], msg: 'String must contain at least 1 character(s)', type: 'too_small' }]).errors).toEqual({ label: { __errors: ['String must contain at least 1 character(s)'] } });
    expect(apiErrorsToFields('Integration not found').unplaced).toEqual(['Integration not found']);
  });

  it('sends a cleared configuration key as null, so the merge patch removes it', () => {
    expect(configPatch({ base_url: 'https://a', region: 'eu' }, { base_url: 'https://b' })).toEqual({ base_url: 'https://b', region: null });
  });
});
