/**
 * `npm run deploy`'s command line: its usage, its options, and what is wrong with a command line
 * in one line (exit 2), never Node's own parser text.
 */
import { parseArgs } from "node:util";
import { parserProblem } from "../cli/parser-problem.ts";
import { PLANS } from "./deploy-config.ts";

/** The usage, for --help and any wrong command line. */
export const DEPLOY_USAGE = `usage: npm run deploy [-- options]

Deploys the harness to the Cloudflare account wrangler is logged into (npx wrangler login
once, or CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID): bundles the agents and the console,
asks once for ANTHROPIC_API_KEY (or takes it from the environment), creates the D1 database and
the R2 bucket on the first deploy, applies the D1 migrations, makes a first admin (its token is
printed once) and prints the URL. Enable R2 in the dashboard before the first deploy.

options:
  --plan free|paid  the Workers plan to fit (default free: no run_code)
  --dry-run         build the plan's configuration and bundle, print its size and variables;
                    needs no login, uploads and changes nothing
  --check           dry-run every supported configuration against its plan's limits (npm test)
  -h, --help        this text
`;

/** `npm run deploy`'s options, or exit 2 with what is wrong with them and the usage. */
export function deployArgs(args: string[]) {
  try {
    const { values } = parseArgs({
      args,
      options: {
        plan: { type: "string", default: "free" },
        check: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    if (!values.help && !(values.plan in PLANS))
      throw new Error(`--plan is ${Object.keys(PLANS).join(" or ")}, not "${values.plan}"`);
    return values;
  } catch (error) {
    process.stderr.write(`deploy: ${parserProblem(error)}\n\n${DEPLOY_USAGE}`);
    process.exit(2);
  }
}
