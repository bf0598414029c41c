/**
 * The deployment's privacy policy (LGPD), as `GET /api/privacy` answers it: the operator's text
 * (`PRIVACY_POLICY_TEXT`) or link (`PRIVACY_POLICY_URL`), else a default written from this
 * deployment's settings: what is stored, where, for how long (`RETENTION_DAYS`,
 * `ANONYMOUS_RETENTION_DAYS`), who else receives it, and the routes that export and erase it. The
 * facts (`stored`, `retention`) are always given, whatever text the operator sets. Its version is
 * `PRIVACY_POLICY_VERSION`, else a hash of the text and link, so a changed policy asks for
 * consent again. Pure but for hashing: no I/O.
 */
import type { Config } from "../config/config.ts";
import { sha256Hex } from "../platform/hex.ts";

/** One kind of data kept: what, where and for how long. */
export interface StoredData {
  what: string;
  where: string;
  kept: string;
}

/** The policy as answered (the link is added per request: it depends on the public URL). */
export interface PrivacyPolicy {
  version: string;
  text: string;
  /** The operator's policy page, if set (`PRIVACY_POLICY_URL`). */
  url: string | null;
  consentRequired: boolean;
  retention: { taskDays: number | null; anonymousTaskDays: number | null };
  stored: StoredData[];
}

/** Days an anonymous conversation's task is kept (null: until deleted). */
function anonymousDays(config: Config): number | null {
  const days = [config.retentionDays, config.anonymousRetentionDays].filter((d) => d > 0);
  return days.length > 0 ? Math.min(...days) : null;
}

const afterTask = (days: number | null, otherwise: string): string =>
  days === null ? otherwise : `${days} days after each task ends, then erased`;

/** What this deployment keeps, from its settings. */
export function storedData(config: Config): StoredData[] {
  const tasks = afterTask(
    config.retentionDays || null,
    "until you delete the conversation or erase your data",
  );
  const stored: StoredData[] = [
    {
      what: "your account: id, name, role, the agents you may use, budget overrides, the SHA-256 hashes of your tokens (never a token) and your consent to this policy",
      where: "the deployment's D1 database (Cloudflare)",
      kept: "until your data is erased",
    },
    {
      what: "your conversations: each task's messages, the agents' answers and artifacts, tool calls and their results, and an index row (agent, conversation id, state, times)",
      where: "Durable Objects (one per task and per conversation) and the D1 database (Cloudflare)",
      kept: tasks,
    },
    {
      what: "your files with each agent: workspace files and their checkpoints, the agent's memory of you, plans and progress notes, sub-agents' scratchpads",
      where: "Durable Objects and the deployment's R2 bucket (Cloudflare)",
      kept: "until your data is erased (a scratchpad: with its conversation)",
    },
    {
      what: "usage: model tokens spent per task, day and month; message and stream counters",
      where: "a Durable Object per user (per IP address for callers without an account)",
      kept: "until your data is erased (counters: their window, a minute)",
    },
    {
      what: "request logs: time, route, status, request, trace, task and user ids (never a token or a message's text)",
      where: "the operator's Cloudflare Workers logs",
      kept: "as the operator's log retention says",
    },
  ];
  if (config.allowAnonymous)
    stored.push({
      what: "a conversation without an account: its tasks, files and memory, under a hash of its conversation id",
      where: "the same places",
      kept: afterTask(anonymousDays(config), "until the conversation is deleted"),
    });
  return stored;
}

/** The default policy text, from the facts. */
export function defaultPolicyText(config: Config): string {
  return [
    "Privacy policy of this agent service (the default text; the operator may replace it).",
    "",
    "What is stored, where, and for how long:",
    ...storedData(config).map((d) => `- ${d.what}. Where: ${d.where}. Kept: ${d.kept}.`),
    "",
    "Who else receives it: your messages and files are sent to the model provider (Anthropic's Messages API) to be answered; a web page, MCP server or remote agent that an agent calls receives what the agent sends it.",
    "",
    "Your rights: export everything kept about you (GET /api/users/<id>/data); erase it (DELETE /api/users/<id>/data); delete one conversation (DELETE /api/sessions/<contextId>); give or withdraw consent to this policy (POST or DELETE /api/privacy/consent).",
  ].join("\n");
}

const cache = new WeakMap<Config, Promise<PrivacyPolicy>>();

/** The policy in force (memoized per configuration). */
export function privacyPolicy(config: Config): Promise<PrivacyPolicy> {
  let policy = cache.get(config);
  if (!policy) {
    policy = build(config);
    cache.set(config, policy);
  }
  return policy;
}

async function build(config: Config): Promise<PrivacyPolicy> {
  const { policyText, policyUrl, policyVersion, requireConsent } = config.privacy;
  const text =
    policyText ??
    (policyUrl
      ? `The privacy policy of this service is at ${policyUrl}.`
      : defaultPolicyText(config));
  const version = policyVersion ?? (await sha256Hex(`${policyUrl ?? ""}\n${text}`)).slice(0, 12);
  return {
    version,
    text,
    url: policyUrl ?? null,
    consentRequired: requireConsent,
    retention: {
      taskDays: config.retentionDays || null,
      anonymousTaskDays: config.allowAnonymous ? anonymousDays(config) : null,
    },
    stored: storedData(config),
  };
}
