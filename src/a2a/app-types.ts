/** The Hono environment every route shares: the Worker's bindings and per-request variables. */
import type { Principal } from "../auth/principal.ts";
import type { LogVariables } from "../platform/logging.ts";

export type AppEnv = {
  Bindings: Env;
  Variables: LogVariables & {
    owner: string;
    principal: Principal;
    /** Re-checks the request's credentials (open streams call it every few seconds). */
    authCheck: () => Promise<boolean>;
  };
};
