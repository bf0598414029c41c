/**
 * A minimal A2A agent (v1.0 JSON-RPC, Node) that is not a harness: its card is not signed and
 * declares no delegation, and every task it starts waits in auth-required ("Sign in at ...")
 * until a follow-up message arrives, then completes. The e2e tests use it as the remote agent
 * that needs the user, and as an agent whose card fails `requireSignature`. Node only.
 */
import { createServer, type Server } from "node:http";

/** A running agent: its base URL, what it was sent, and how to stop it. */
export interface AuthAgent {
  url: string;
  /** The text of every message it received, in order. */
  received: string[];
  close(): Promise<void>;
}

/** What the agent asks for before it works. */
export const SIGN_IN = "Sign in at https://login.example/start, then tell me.";

type Json = Record<string, unknown>;

/** Starts the agent on a free port of 127.0.0.1. */
export async function startAuthAgent(): Promise<AuthAgent> {
  const tasks = new Map<string, Json>();
  const received: string[] = [];
  let url = "";
  const task = (id: string, contextId: string, state: string, text: string): Json => ({
    id,
    contextId,
    status: {
      state,
      message: { messageId: crypto.randomUUID(), role: "ROLE_AGENT", parts: [{ text }] },
    },
    ...(state === "TASK_STATE_COMPLETED"
      ? { artifacts: [{ artifactId: "answer", parts: [{ text }] }] }
      : {}),
  });
  const call = (method: string, params: Json): Json => {
    if (method === "SendMessage") {
      const message = params.message as { taskId?: string; parts?: Array<{ text?: string }> };
      received.push((message.parts ?? []).map((p) => p.text ?? "").join(""));
      const known = message.taskId ? tasks.get(message.taskId) : undefined;
      const next = known
        ? task(
            String(known.id),
            String(known.contextId),
            "TASK_STATE_COMPLETED",
            "Signed in, thanks.",
          )
        : task(crypto.randomUUID(), crypto.randomUUID(), "TASK_STATE_AUTH_REQUIRED", SIGN_IN);
      tasks.set(String(next.id), next);
      return { task: next };
    }
    const found = tasks.get(String(params.id));
    if (!found) throw Object.assign(new Error("Task not found"), { code: -32001 });
    if (method === "GetTask") return found;
    if (method === "CancelTask") {
      const canceled = task(String(found.id), String(found.contextId), "TASK_STATE_CANCELED", "");
      tasks.set(String(found.id), canceled);
      return canceled;
    }
    throw Object.assign(new Error(`no method ${method}`), { code: -32601 });
  };
  const server: Server = createServer((req, res) => {
    res.setHeader("Content-Type", "application/json");
    if (req.method === "GET") {
      res.end(
        JSON.stringify({
          name: "auth-agent",
          description: "Needs the user's sign-in before it works.",
          version: "1.0.0",
          supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
          capabilities: { streaming: false, pushNotifications: false },
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
          skills: [],
        }),
      );
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      let id: unknown = null;
      try {
        const request = JSON.parse(body) as { id: unknown; method: string; params: Json };
        id = request.id;
        res.end(
          JSON.stringify({ jsonrpc: "2.0", id, result: call(request.method, request.params) }),
        );
      } catch (error) {
        const code = (error as { code?: number }).code ?? -32603;
        res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message: String(error) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  return {
    url,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
