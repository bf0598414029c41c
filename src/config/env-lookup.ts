/**
 * A binding, secret or var of the Worker's `env` looked up by a name that configuration gives
 * (an agent's MCP server, a remote agent's service binding, a webhook's secret). Only the env's
 * own properties answer: a name such as `constructor` or `__proto__` finds nothing.
 */

/** The value `env` holds under `name`, or undefined. */
export function envNamed(env: object, name: string): unknown {
  return Object.hasOwn(env, name) ? (env as Record<string, unknown>)[name] : undefined;
}
