import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { ErrorSchemaBuilder, ROOT_SCHEMA_PREFIX, withIdRefPrefix, type ErrorTransformer, type RJSFSchema, type RJSFValidationError, type UiSchema, type ValidationData, type ValidatorType } from '@rjsf/utils';

/**
 * rjsf's validator on @cfworker/json-schema, which interprets schemas instead of compiling
 * them to functions: the console's CSP (`script-src 'self'`, no `unsafe-eval`) refuses Ajv's
 * `new Function`. Draft 2020-12, the catalog's draft and the API's. Each failed check becomes
 * an error under the field it concerns (a missing property under that property), as
 * @rjsf/validator-ajv8 places them.
 */
export class InterpretingValidator<T = unknown> implements ValidatorType<T> {
  private readonly compiled = new WeakMap<object, Validator>();

  validateFormData(formData: T | undefined, schema: RJSFSchema, _customValidate?: unknown, transformErrors?: ErrorTransformer<T>, uiSchema?: UiSchema<T>): ValidationData<T> {
    const located = leafErrors(this.run(schema, formData, schema)).map(toRjsfError);
    const errors = transformErrors ? transformErrors(located, uiSchema) : located;
    const builder = new ErrorSchemaBuilder<T>();
    for (const error of errors) builder.addErrors(error.message ?? 'is invalid', pathOf(error.property));
    return { errors, errorSchema: builder.ErrorSchema };
  }

  isValid(schema: RJSFSchema, formData: T | undefined, rootSchema: RJSFSchema): boolean {
    return this.run(schema, formData, rootSchema).length === 0;
  }

  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: T): { errors?: Result[]; validationError?: Error } {
    try {
      return { errors: this.run(schema, formData, schema) as Result[] };
    } catch (error) {
      return { validationError: error as Error };
    }
  }

  /** `schema` may `$ref` the root (rjsf prefixes such refs with ROOT_SCHEMA_PREFIX); validators are kept per schema object. */
  private run(schema: RJSFSchema, data: unknown, rootSchema: RJSFSchema): OutputUnit[] {
    let validator = schema === rootSchema ? this.compiled.get(schema) : undefined;
    if (validator === undefined) {
      validator = new Validator(withIdRefPrefix(schema) as Schema, '2020-12', false);
      validator.addSchema(rootSchema as Schema, ROOT_SCHEMA_PREFIX);
      if (schema === rootSchema) this.compiled.set(schema, validator);
    }
    return validator.validate(data ?? {}).errors;
  }
}

/** Keywords whose failure only says that something inside failed: the inner errors say what. */
const WRAPPERS = new Set(['properties', 'items', 'prefixItems', 'allOf', '$ref', '$dynamicRef', 'dependentSchemas', 'then', 'else', 'additionalProperties', 'patternProperties']);

function leafErrors(errors: readonly OutputUnit[]): OutputUnit[] {
  return errors.filter((error) => !WRAPPERS.has(error.keyword) || !errors.some((other) => other !== error && other.keywordLocation.startsWith(`${error.keywordLocation}/`)));
}

function toRjsfError(error: OutputUnit): RJSFValidationError {
  const path = error.instanceLocation.replace(/^#/, '').split('/').filter((part) => part !== '').map(unescapePointer);
  const missing = error.keyword === 'required' ? /required property "(.+)"/.exec(error.error)?.[1] : undefined;
  const property = `.${[...path, ...(missing === undefined ? [] : [missing])].join('.')}`;
  const message = missing === undefined ? error.error.replace(/\.$/, '') : 'is required';
  return { name: error.keyword, property, message, params: {}, stack: `${property} ${message}`, schemaPath: error.keywordLocation };
}

function pathOf(property: string | undefined): string[] {
  return (property ?? '').split('.').filter((part) => part !== '');
}

function unescapePointer(part: string): string {
  return decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
}
