/**
 * The one registry of contexts (ARCHITECTURE §2): each line pairs a context's service half
 * (its definition: messages, projections, reactors, config slice) with its edge half (its
 * HTTP routes). Read by the standalone app, the service mains, the gateway (routes and
 * `/ready`), the rebuild tool and the distributed runner. Adding a context: its libs, one
 * line here, and `apps/<name>/main.ts`.
 */
import type { ContextDefinition } from '@lore/platform/cqrs';
import type { EdgeDeps, HttpEdge } from '@lore/platform/http';
import { loadContextConfig } from '@lore/platform/runtime';
import type { ComposedEdge } from '@lore/gateway';
import { connectionsContext } from '@lore/connections/application';
import { connectionsEdge } from '@lore/connections/http';
import { conversationsContext } from '@lore/conversations/application';
import { conversationsEdge } from '@lore/conversations/http';
import { keysContext } from '@lore/keys/application';
import { keysEdge } from '@lore/keys/http';
import { knowledgeContext } from '@lore/knowledge/application';
import { knowledgeEdge } from '@lore/knowledge/http';
import { memoryContext } from '@lore/memory/application';
import { memoryEdge } from '@lore/memory/http';

export interface RegisteredContext {
  readonly service: ContextDefinition;
  readonly edge: HttpEdge;
}

/**
 * Erases each pair's own config type once its halves are checked to agree on it: the
 * service's configuration holds at least what its edge reads (it may read more, e.g. other
 * contexts' slices for the messages it sends them).
 */
function register<E, C extends E>(service: ContextDefinition<C>, edge: HttpEdge<E>): RegisteredContext {
  if (service.name !== edge.name) throw new Error(`context ${service.name} is paired with the edge of ${edge.name}`);
  return { service, edge } as unknown as RegisteredContext;
}

export const CONTEXTS: readonly RegisteredContext[] = [
  register(connectionsContext, connectionsEdge),
  register(conversationsContext, conversationsEdge),
  register(keysContext, keysEdge),
  register(knowledgeContext, knowledgeEdge),
  register(memoryContext, memoryEdge),
];

export function contextNamed(name: string): RegisteredContext {
  const found = CONTEXTS.find((c) => c.service.name === name);
  if (found === undefined) throw new Error(`no context named ${name}; known: ${CONTEXTS.map((c) => c.service.name).join(', ')}`);
  return found;
}

/** Every registered context's routes, built from its configuration slice, and its integration events, for the gateway. */
export function composeEdges(deps: EdgeDeps, env: NodeJS.ProcessEnv = process.env): ComposedEdge[] {
  return CONTEXTS.map(({ edge }) => ({ name: edge.name, routes: edge.routes(loadContextConfig(edge, env), deps), events: edge.events ?? [] }));
}
