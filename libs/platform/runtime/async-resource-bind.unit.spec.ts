import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { installLeanAsyncResourceBind } from './async-resource-bind';

describe('installLeanAsyncResourceBind', () => {
  const bindOf = (): unknown => Object.getOwnPropertyDescriptor(AsyncResource.prototype, 'bind')?.value;
  const nodeBind = Object.getOwnPropertyDescriptor(AsyncResource.prototype, 'bind');
  beforeAll(() => installLeanAsyncResourceBind());
  afterAll(() => {
    if (nodeBind !== undefined) Object.defineProperty(AsyncResource.prototype, 'bind', nodeBind);
  });

  it('binds without the deprecated asyncResource accessor', () => {
    const bound = new AsyncResource('test').bind(() => undefined);
    expect(Object.prototype.hasOwnProperty.call(bound, 'asyncResource')).toBe(false);
  });

  it("runs the function in the resource's async scope, with the caller's this, the arguments, the result and the length", () => {
    const storage = new AsyncLocalStorage<string>();
    const bound = storage.run('at bind time', () =>
      new AsyncResource('test').bind(function (this: unknown, a: number, b: number) {
        return { store: storage.getStore(), self: this, sum: a + b };
      }),
    );
    const caller = { name: 'caller' };
    const result = storage.run('at call time', () => bound.call(caller, 2, 3));
    expect(result).toEqual({ store: 'at bind time', self: caller, sum: 5 });
    expect(bound.length).toBe(2);
  });

  it('binds `this` to thisArg when one is given', () => {
    const target = { name: 'target' };
    // Node's (documented) second parameter, which @types/node does not declare.
    const self = function (this: unknown): unknown {
      return this;
    };
    const bound = Reflect.apply(bindOf() as () => unknown, new AsyncResource('test'), [self, target]) as () => unknown;
    expect(bound.call({ name: 'other' })).toBe(target);
  });
});
