import { AsyncResource } from 'node:async_hooks';

/**
 * Node 20 to 24 give every function `AsyncResource.prototype.bind` returns a deprecated
 * `asyncResource` accessor (DEP0172; nodejs/node#58618 removes it), made of two
 * `util.deprecate` wrappers, each a fresh function whose prototype is then changed, plus
 * `Object.defineProperties`. Fastify binds one such function per request with a body (its
 * content-type parser's callback), and on a memory create that was 6–7 % of the server's CPU
 * (`write.bench`, three rounds against the same build without this).
 *
 * Where Node still defines the accessor, `bind` is replaced by the same binding without it:
 * the function runs in the resource's async scope (its AsyncLocalStorage stores), with the
 * caller's `this` (or `thisArg`, when given) and arguments, returns what it returns, and keeps
 * its `length`. Nothing Lore runs reads the deprecated property. Called once by the processes
 * that serve HTTP.
 */
export function installLeanAsyncResourceBind(): void {
  const probe = new AsyncResource('lore-probe').bind(() => undefined);
  if (Object.prototype.hasOwnProperty.call(probe, 'asyncResource')) AsyncResource.prototype.bind = leanBind as AsyncResource['bind'];
}

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

function leanBind(this: AsyncResource, fn: AnyFunction, thisArg?: unknown): AnyFunction {
  if (typeof fn !== 'function') throw Object.assign(new TypeError('The "fn" argument must be of type function'), { code: 'ERR_INVALID_ARG_TYPE' });
  const bound = thisArg === undefined ? inScopeOf(this, fn) : this.runInAsyncScope.bind(this, fn, thisArg);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  return bound;
}

/** `fn` run in `resource`'s scope with whatever `this` it is called with. */
function inScopeOf(resource: AsyncResource, fn: AnyFunction): AnyFunction {
  return function (this: unknown, ...args: unknown[]): unknown {
    return resource.runInAsyncScope(fn, this, ...args);
  };
}
