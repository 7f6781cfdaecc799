import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preValidation';

/**
 * Adds a hook to one route from an `onRoute` listener. Hooks that only some routes need are
 * attached to those routes alone, so /healthz, Swagger UI and 404s pay nothing for them.
 * Hooks added this way run in the order the listeners were registered.
 */
// biome-ignore lint/suspicious/noExplicitAny: Fastify's hook signatures differ per hook name
export function addRouteHook(route: RouteOptions, name: HookName, hook: (...args: any[]) => unknown): void {
  const existing = route[name];
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  (route as unknown as Record<HookName, unknown[]>)[name] = [...list, hook];
}
