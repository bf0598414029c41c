// The harness's web console (served at /console): agent roster, a streaming chat that shows the
// harness's events and answers input-required forms, and a task inspector. Plain browser
// JavaScript, no framework; it speaks A2A v1.0 JSON-RPC to the same endpoints as any client.

const HARNESS_EXT = "urn:a2a-edge-harness:ext:harness-events:v1";
const $ = (selector, root = document) => root.querySelector(selector);

/** Creates an element with attributes and children (strings become text). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat())
    if (child !== null && child !== undefined)
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

const state = {
  token: localStorage.getItem("a2a-token") || "",
  user: null,
  agents: [],
  agent: null,
  contexts: {},
  rpcId: 0,
};

function headers(extra = {}) {
  return {
    "A2A-Version": "1.0",
    ...(state.token ? { Authorization: `Bearer ${state.token}` } : {}),
    ...extra,
  };
}

const stateName = (s) =>
  String(s || "")
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");
const textOf = (m) =>
  (m?.parts || [])
    .filter((p) => typeof p.text === "string")
    .map((p) => p.text)
    .join("");

async function api(path) {
  const response = await fetch(path, { headers: headers() });
  const body = await response.json().catch(() => ({}));
  if (!response.ok)
    throw Object.assign(new Error(body?.error?.message || response.statusText), {
      status: response.status,
    });
  return body;
}

async function rpc(agent, method, params) {
  const response = await fetch(`/agents/${agent}/`, {
    method: "POST",
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify({ jsonrpc: "2.0", id: ++state.rpcId, method, params }),
  });
  const body = await response.json();
  if (body.error) throw new Error(`${body.error.message} (${body.error.code})`);
  return body.result;
}

/** Sends a streaming message; calls onEvent with each StreamResponse. */
async function stream(agent, message, onEvent) {
  const response = await fetch(`/agents/${agent}/`, {
    method: "POST",
    headers: headers({ "content-type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++state.rpcId,
      method: "SendStreamingMessage",
      params: { message },
    }),
  });
  if (!response.ok || !response.body) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body?.error?.message || `HTTP ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      if (data) {
        const body = JSON.parse(data);
        if (body.error) throw new Error(`${body.error.message} (${body.error.code})`);
        onEvent(body.result);
      }
      end = buffer.indexOf("\n\n");
    }
  }
}

// ---- sign-in ---------------------------------------------------------------------------------

async function whoAmI() {
  try {
    const usage = await api("/api/usage");
    state.user = usage.user;
    $("#who").textContent =
      state.user === "anonymous" ? "open (no sign-in needed)" : `signed in as ${state.user}`;
    // Signed in, or open to anonymous callers: no sign-in form (a token can still be set by
    // signing out first).
    $("#signin").hidden = true;
    $("#signout").hidden = !state.token;
    return true;
  } catch (error) {
    state.user = null;
    $("#who").textContent = error.status === 401 ? "sign in with a token" : String(error.message);
    $("#signin").hidden = false;
    $("#signout").hidden = true;
    return false;
  }
}

// ---- roster ----------------------------------------------------------------------------------

async function loadRoster() {
  const list = await api("/agents");
  state.agents = list.agents;
  const roster = $("#roster");
  roster.replaceChildren(
    ...list.agents.map((agent) =>
      el(
        "li",
        {},
        el(
          "button",
          {
            class: "agent",
            type: "button",
            "data-agent": agent.name,
            "aria-pressed": "false",
            onclick: () => selectAgent(agent.name),
          },
          el("strong", { text: agent.name }),
          el("span", { class: "muted", text: agent.description }),
        ),
      ),
    ),
  );
  selectAgent(state.agent || list.defaultAgent || list.agents[0]?.name);
}

async function selectAgent(name) {
  if (!name) return;
  state.agent = name;
  for (const button of document.querySelectorAll("#roster button"))
    button.setAttribute("aria-pressed", String(button.dataset.agent === name));
  $("#agent-name").textContent = name;
  const card = await fetch(`/agents/${name}/.well-known/agent-card.json`, {
    headers: headers(),
  }).then((r) => r.json());
  $("#agent-about").replaceChildren(
    el("p", { text: card.description || "" }),
    el(
      "ul",
      { class: "skills", "aria-label": "skills" },
      ...(card.skills || []).map((s) => el("li", { title: s.description || "" }, s.name)),
    ),
  );
  $("#messages").replaceChildren();
  $("#prompt").focus();
  loadTasks();
}

// ---- chat ------------------------------------------------------------------------------------

const ICONS = {
  tool_call: "→",
  tool_result: "←",
  plan: "☰",
  progress: "✎",
  verification: "!",
  loop_warning: "!",
  cap_reached: "!",
  turn_limit: "!",
  checkpoint: "⎌",
  rollback: "⎌",
  compaction: "⇣",
  approval: "?",
  subagent: "⇢",
  remote: "⇢",
};
const HOOK_KINDS = new Set([
  "verification",
  "loop_warning",
  "cap_reached",
  "turn_limit",
  "output_truncated",
  "output_compacted",
]);

function harnessEvent(message) {
  const parts = message?.parts || [];
  const data = parts.find(
    (p) => p.data && (p.metadata?.extension === HARNESS_EXT || typeof p.data.kind === "string"),
  )?.data;
  if (!data || data.kind === "form") return null;
  return { text: textOf(message), data };
}

/** One agent turn in the chat: events, the streamed answer, the status, a form when asked. */
class Turn {
  constructor(agent) {
    this.agent = agent;
    this.answer = "";
    this.taskId = "";
    this.events = el("ol", { class: "events", "aria-label": "what the agent did" });
    this.text = el("div", { class: "answer", "aria-live": "polite" });
    this.status = el("p", { class: "status", role: "status", text: "sending…" });
    this.actions = el("div", { class: "actions" });
    this.node = el(
      "li",
      { class: "turn agent-turn" },
      el("div", { class: "who", text: agent }),
      this.events,
      this.text,
      this.status,
      this.actions,
    );
    $("#messages").append(this.node);
  }

  scroll() {
    this.node.scrollIntoView({ block: "end", behavior: "smooth" });
  }

  event(result) {
    if (result.task) {
      this.taskId = result.task.id;
      state.contexts[this.agent] = result.task.contextId;
      this.setState(result.task.status);
    } else if (result.statusUpdate) {
      const status = result.statusUpdate.status;
      const event = harnessEvent(status.message);
      if (event) this.addEvent(event);
      else this.setState(status);
    } else if (result.artifactUpdate) {
      const { artifact, append } = result.artifactUpdate;
      if (artifact.artifactId !== "answer" && artifact.name !== "answer") return;
      const piece = textOf(artifact);
      this.answer = append ? this.answer + piece : piece;
      this.text.textContent = this.answer;
    } else if (result.message) {
      this.text.textContent = textOf(result.message);
    }
    this.scroll();
  }

  addEvent({ text, data }) {
    const kind = data.kind;
    const item = el(
      "li",
      { class: `event kind-${kind}${HOOK_KINDS.has(kind) ? " hook" : ""}`, "data-kind": kind },
      el("span", { class: "icon", "aria-hidden": "true", text: ICONS[kind] || "·" }),
      el("span", { class: "kind", text: kind.replaceAll("_", " ") }),
      el("span", { class: "text", text }),
      data.agent && data.agent !== this.agent
        ? el("span", { class: "muted", text: ` [${data.agent}]` })
        : null,
    );
    if (kind === "plan" && Array.isArray(data.detail?.todos))
      item.append(
        el(
          "ul",
          { class: "plan" },
          ...data.detail.todos.map((t) =>
            el(
              "li",
              { class: `todo ${t.status}` },
              `${t.status === "completed" ? "☑" : t.status === "in_progress" ? "▶" : "☐"} ${t.content}`,
            ),
          ),
        ),
      );
    this.events.append(item);
  }

  setState(status) {
    const name = stateName(status.state);
    this.state = name;
    const text = textOf(status.message);
    this.status.textContent =
      name === "completed" ? "✓ completed" : `${name}${text ? `: ${text}` : ""}`;
    this.status.className = `status state-${name}`;
    this.actions.replaceChildren(
      el(
        "button",
        { type: "button", class: "link", onclick: () => inspect(this.taskId) },
        "inspect task",
      ),
    );
    if (name === "input-required") this.askForm(status.message);
  }

  askForm(message) {
    const schema = (message?.parts || []).find((p) => p.data?.kind === "form")?.data?.schema;
    const form = el("form", { class: "answer-form", "aria-label": "answer the agent" });
    const fields = Object.entries(schema?.properties || {});
    if (fields.length === 0)
      form.append(
        el(
          "label",
          {},
          "Your answer",
          el("textarea", { name: "answer", rows: "2", required: true }),
        ),
      );
    for (const [name, spec] of fields) {
      const required = (schema.required || []).includes(name);
      let input;
      if (Array.isArray(spec.enum))
        input = el(
          "select",
          { name, required },
          ...spec.enum.map((v) => el("option", { value: v }, String(v))),
        );
      else if (spec.type === "boolean") input = el("input", { name, type: "checkbox" });
      else
        input = el("input", {
          name,
          type: spec.type === "number" || spec.type === "integer" ? "number" : "text",
          required,
        });
      form.append(el("label", {}, spec.title || name, input));
    }
    form.append(el("button", { type: "submit" }, "Send answer"));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const data = new FormData(form);
      let parts;
      if (fields.length === 0) parts = [{ text: String(data.get("answer")) }];
      else {
        const values = {};
        for (const [name, spec] of fields)
          values[name] =
            spec.type === "boolean"
              ? form.elements[name].checked
              : spec.type === "number" || spec.type === "integer"
                ? Number(data.get(name))
                : data.get(name);
        parts = [{ data: values, mediaType: "application/json" }];
      }
      form.remove();
      send(parts, this.taskId);
    });
    this.actions.append(form);
    form.querySelector("input, select, textarea")?.focus();
  }
}

async function send(parts, taskId) {
  const agent = state.agent;
  const contextId = state.contexts[agent];
  const shown = parts.map((p) => p.text ?? JSON.stringify(p.data)).join(" ");
  $("#messages").append(
    el(
      "li",
      { class: "turn user-turn" },
      el("div", { class: "who", text: "you" }),
      el("div", { class: "answer", text: shown }),
    ),
  );
  const turn = new Turn(agent);
  try {
    await stream(
      agent,
      {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts,
        ...(contextId ? { contextId } : {}),
        ...(taskId ? { taskId } : {}),
      },
      (result) => turn.event(result),
    );
  } catch (error) {
    turn.status.textContent = `error: ${error.message}`;
    turn.status.className = "status state-failed";
  }
  loadTasks();
}

// ---- inspector -------------------------------------------------------------------------------

async function loadTasks() {
  if (!state.agent) return;
  try {
    const page = await rpc(state.agent, "ListTasks", { pageSize: 20 });
    $("#tasks").replaceChildren(
      ...page.tasks.map((t) =>
        el(
          "li",
          {},
          el(
            "button",
            { type: "button", class: "link", onclick: () => inspect(t.id) },
            `${stateName(t.status.state)} · ${t.id.slice(0, 8)} · ${new Date(t.status.timestamp).toLocaleTimeString()}`,
          ),
        ),
      ),
    );
  } catch {
    $("#tasks").replaceChildren();
  }
}

async function inspect(taskId) {
  if (!taskId) return;
  const panel = $("#inspector-body");
  $("#inspector").open = true;
  panel.replaceChildren(el("p", { text: "loading…" }));
  try {
    const [task, log] = await Promise.all([
      rpc(state.agent, "GetTask", { id: taskId }),
      api(`/api/tasks/${taskId}/events`),
    ]);
    const usage = task.metadata?.usage || {};
    panel.replaceChildren(
      el(
        "dl",
        { class: "facts" },
        el("dt", { text: "task" }),
        el("dd", { text: task.id }),
        el("dt", { text: "state" }),
        el("dd", {
          class: `state-${stateName(task.status.state)}`,
          text: stateName(task.status.state),
        }),
        el("dt", { text: "context" }),
        el("dd", { text: task.contextId }),
        el("dt", { text: "model" }),
        el("dd", {
          text: `${task.metadata?.model?.name || "?"} (${task.metadata?.model?.source || "?"})`,
        }),
        el("dt", { text: "usage" }),
        el("dd", {
          text: `${usage.inputTokens ?? 0} in · ${usage.outputTokens ?? 0} out · ${usage.cacheReadTokens ?? 0} cache read · ${usage.modelCalls ?? 0} model calls`,
        }),
      ),
      el("h3", { text: "Artifacts" }),
      ...(task.artifacts || []).map((a) =>
        el(
          "details",
          { open: a.artifactId === "answer" },
          el("summary", { text: a.name || a.artifactId }),
          el("pre", { text: textOf(a) }),
        ),
      ),
      el("h3", { text: "History" }),
      el(
        "ol",
        { class: "history" },
        ...(task.history || []).map((m) =>
          el(
            "li",
            {},
            el("strong", { text: m.role === "ROLE_USER" ? "user: " : "agent: " }),
            textOf(m) || JSON.stringify(m.parts?.[1]?.data ?? m.parts?.[0]?.data ?? ""),
          ),
        ),
      ),
      el("h3", { text: `Event log (${log.events.length})` }),
      el(
        "table",
        { class: "log" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", { scope: "col", text: "#" }),
            el("th", { scope: "col", text: "+ms" }),
            el("th", { scope: "col", text: "kind" }),
            el("th", { scope: "col", text: "what" }),
          ),
        ),
        el(
          "tbody",
          {},
          ...log.events.map((e) =>
            el(
              "tr",
              {},
              el("td", { text: String(e.seq) }),
              el("td", { text: String(e.sinceStartMs) }),
              el("td", { text: e.kind }),
              el("td", { text: summarize(e.event) }),
            ),
          ),
        ),
      ),
    );
  } catch (error) {
    panel.replaceChildren(el("p", { class: "state-failed", text: error.message }));
  }
}

function summarize(event) {
  if (event.task) return `task ${stateName(event.task.status.state)}`;
  if (event.statusUpdate) {
    const status = event.statusUpdate.status;
    return `${stateName(status.state)}${textOf(status.message) ? `: ${textOf(status.message)}` : ""}`.slice(
      0,
      200,
    );
  }
  if (event.artifactUpdate)
    return `${event.artifactUpdate.artifact.name || "artifact"}: ${textOf(event.artifactUpdate.artifact).slice(0, 120)}`;
  return JSON.stringify(event).slice(0, 200);
}

// ---- wiring ----------------------------------------------------------------------------------

async function boot() {
  $("#composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("#prompt").value.trim();
    if (!text) return;
    $("#prompt").value = "";
    send([{ text }]);
  });
  $("#prompt").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      $("#composer").requestSubmit();
    }
  });
  $("#new-chat").addEventListener("click", () => {
    delete state.contexts[state.agent];
    $("#messages").replaceChildren();
  });
  $("#signin").addEventListener("submit", async (e) => {
    e.preventDefault();
    state.token = $("#token").value.trim();
    localStorage.setItem("a2a-token", state.token);
    $("#token").value = "";
    if (await whoAmI()) await loadRoster();
  });
  $("#signout").addEventListener("click", async () => {
    state.token = "";
    localStorage.removeItem("a2a-token");
    await whoAmI();
  });
  $("#inspect-form").addEventListener("submit", (e) => {
    e.preventDefault();
    inspect($("#inspect-id").value.trim());
  });
  if (await whoAmI()) await loadRoster();
  else {
    const list = await api("/agents").catch(() => null);
    if (list)
      $("#roster").replaceChildren(
        ...list.agents.map((a) => el("li", { class: "muted", text: a.name })),
      );
  }
}

boot();
