import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/** Where the gateway serves the console (libs/gateway/routes/console.routes.ts; Vite's `base`). */
export const CONSOLE_BASE = '/console';

/**
 * A link from inside one screen to a path of another (`/knowledge/…` from the search screen):
 * screens are nested routes, whose links are relative to their own path; `~` starts from the
 * browser's root instead.
 */
export function screenHref(path: string): string {
  return `~${CONSOLE_BASE}${path}`;
}

/** One screen of the console: its path under /console, its nav label, and the lazily loaded component. */
export interface ScreenRoute {
  readonly path: string;
  readonly label: string;
  readonly screen: LazyExoticComponent<ComponentType>;
}

/**
 * Every screen, in nav order; the first is where `/console/` lands. Each screen is its own
 * chunk (lazy import), so the first load carries the shell only. A screen owns the paths under
 * its own (`/knowledge/:id`): it is mounted as a nested route.
 */
export const ROUTES: readonly ScreenRoute[] = [
  { path: '/knowledge', label: 'Knowledge', screen: lazy(() => import('../screens/knowledge/KnowledgeScreen')) },
  { path: '/search', label: 'Search', screen: lazy(() => import('../screens/search/SearchScreen')) },
  // Memories, Conversations, Connections, Events & webhooks, API keys: added below this line.
  { path: '/memories', label: 'Memories', screen: lazy(() => import('../screens/memories/MemoriesScreen')) },
  { path: '/conversations', label: 'Conversations', screen: lazy(() => import('../screens/conversations/ConversationsScreen')) },
  { path: '/connections', label: 'Connections', screen: lazy(() => import('../screens/connections/ConnectionsScreen')) },
  { path: '/events', label: 'Events & webhooks', screen: lazy(() => import('../screens/events/EventsScreen')) },
  { path: '/api-keys', label: 'API keys', screen: lazy(() => import('../screens/api-keys/ApiKeysScreen')) },
];
