/** The Hono environment every route shares: the Worker's bindings and per-request variables. */
import type { LogVariables } from "../platform/logging.ts";

export type AppEnv = {
  Bindings: Env;
  Variables: LogVariables & { owner: string };
};
