// The inspector's waterfall: a task tree on one time line, from its trace (GET
// /api/tasks/<id>/trace, OTLP/JSON built from the tasks' own records, so no collector is needed).
// One row per span: the task, its steps, model calls (tokens, cache reads, cost), tool calls,
// waits for a person, hook interventions (markers), and sub-agents, whose rows nest under the
// call that started them and fold.
import { stateWord } from "../../../protocol/task-states.ts";
import { el } from "../dom.js";
import { t } from "../i18n/i18n.js";

const ms = (nanos) => Number(BigInt(nanos) / 1000000n);

/** A span's attributes as an object (OTLP/JSON's typed values unwrapped). */
function attributesOf(span) {
  const out = {};
  for (const { key, value } of span.attributes || []) {
    if ("intValue" in value) out[key] = Number(value.intValue);
    else if ("arrayValue" in value)
      out[key] = (value.arrayValue.values || []).map((v) => Object.values(v)[0]);
    else out[key] = Object.values(value)[0];
  }
  return out;
}

/** The kind of a row, for its colour. */
function kindOf(span, a) {
  if (a["gen_ai.operation.name"] === "invoke_agent") return "agent";
  if (a["gen_ai.operation.name"] === "chat") return "model";
  if (a["gen_ai.operation.name"] === "execute_tool") return "tool";
  if (span.name.startsWith("wait")) return "wait";
  return "step";
}

/** A cost in dollars as the rows show it (marked when the scripted model answered). */
const costText = (usd, simulated) =>
  `${(usd ?? 0).toFixed(4)}${simulated ? ` ${t("simulated")}` : ""}`;

/** What a row says beside its name. */
function detailOf(kind, a, simulated) {
  if (kind === "model")
    return t("wfModel", {
      in: a["gen_ai.usage.input_tokens"] ?? 0,
      out: a["gen_ai.usage.output_tokens"] ?? 0,
      cache: a["gen_ai.usage.cache_read.input_tokens"] ?? 0,
      cost: costText(a["a2a.cost_usd"], simulated),
    });
  if (kind === "tool")
    return `${a["a2a.tool.outcome"] ?? ""}${a["a2a.tool.output_chars"] !== undefined ? ` · ${a["a2a.tool.output_chars"]} chars` : ""}`;
  if (kind === "agent")
    return t("wfAgent", {
      state: stateWord(a["a2a.task.state"]),
      cost: costText(a["a2a.task.cost_usd"], simulated),
    });
  return "";
}

/** The waterfall of an OTLP/JSON trace; `simulated`: its costs are the scripted model's. */
export function waterfall(otlp, { simulated = false } = {}) {
  const spans = (otlp.resourceSpans || []).flatMap((r) =>
    (r.scopeSpans || []).flatMap((s) => s.spans || []),
  );
  if (spans.length === 0) return el("p", { class: "muted", text: t("wfEmpty") });
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map();
  for (const span of spans) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : "";
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(span);
  }
  for (const list of children.values())
    list.sort((x, y) => ms(x.startTimeUnixNano) - ms(y.startTimeUnixNano));
  const t0 = Math.min(...spans.map((s) => ms(s.startTimeUnixNano)));
  const t1 = Math.max(...spans.map((s) => ms(s.endTimeUnixNano)), t0 + 1);
  const pct = (x) => `${(((x - t0) / (t1 - t0)) * 100).toFixed(2)}%`;

  const row = (span, depth) => {
    const a = attributesOf(span);
    const kind = kindOf(span, a);
    const start = ms(span.startTimeUnixNano);
    const end = Math.max(ms(span.endTimeUnixNano), start);
    // Positions through the CSSOM: the console's CSP refuses style attributes.
    const bar = el("span", {
      class: `wf-bar wf-${kind}${span.status?.code === 2 ? " wf-error" : ""}`,
      title: `${span.name}: ${end - start} ms`,
    });
    bar.style.left = pct(start);
    bar.style.width = `max(2px, calc(${pct(end)} - ${pct(start)}))`;
    const marks = (span.events || []).map((e) => {
      const mark = el("span", { class: "wf-mark", title: e.name.replace("harness.", "") });
      mark.style.left = pct(ms(e.timeUnixNano));
      return mark;
    });
    const line = el(
      "div",
      { class: `wf-row wf-row-${kind}` },
      el(
        "span",
        { class: "wf-label" },
        el("span", { class: "wf-name", text: span.name }),
        el("span", { class: "wf-detail", text: detailOf(kind, a, simulated) }),
        ...(span.events || []).map((e) =>
          el("span", { class: "wf-event", text: e.name.replace("harness.", "") }),
        ),
      ),
      el("span", { class: "wf-track" }, bar, ...marks),
    );
    line.style.setProperty("--depth", String(depth));
    return line;
  };

  const node = (span, depth) => {
    const kids = children.get(span.spanId) || [];
    if (kids.length === 0) return row(span, depth);
    const agent = depth > 0 && kindOf(span, attributesOf(span)) === "agent";
    return el(
      "details",
      { class: `wf-node${agent ? " wf-subagent" : ""}`, open: true },
      el("summary", {}, row(span, depth)),
      ...kids.map((kid) => node(kid, depth + 1)),
    );
  };
  return el("div", { class: "waterfall" }, ...(children.get("") || []).map((s) => node(s, 0)));
}
