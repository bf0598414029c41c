// One agent's conversation on screen. Its transcript is rebuilt from the server when it opens
// (tasks still running are followed live with SubscribeToTask); what the person sends shows at
// once and goes out in order once the transcript is there (a new conversation's second message
// waits for the first one's contextId), so nothing typed is ever lost or sent to the wrong
// conversation. Closing a view stops reading its streams; the tasks go on on the server.
import { rpc, stream } from "../api.js";
import { el } from "../dom.js";
import { t } from "../i18n/i18n.js";
import { loadConversation, renderTask, titleOf, userBubble } from "./transcript.js";
import { Turn } from "./turn.js";

const RESUME_ATTEMPTS = 5;

/**
 * A conversation view. `app`: started(view, turn, firstMessage) when a task begins,
 * changed(view, turn) on every change, ended(view, turn) when a stream ends, gone(view),
 * inspect(taskId).
 */
export class View {
  constructor(agent, contextId, app) {
    this.agent = agent;
    this.contextId = contextId;
    this.app = app;
    this.turns = [];
    this.streams = new Set();
    this.closed = false;
    this.list = el("ol", { class: "messages", "aria-label": t("conversationList") });
    this.hooks = {
      send: (parts, taskId) => this.send(parts, taskId),
      inspect: (taskId) => app.inspect(taskId),
      changed: (turn) => app.changed(this, turn),
    };
    this.ready = contextId ? this.#restore() : Promise.resolve();
  }

  /** The newest turn whose task can still change, if any. */
  get running() {
    return this.turns.findLast((t) => t.running) ?? null;
  }

  async #restore() {
    const note = el("li", { class: "note", role: "status", text: t("loadingConversation") });
    this.list.prepend(note);
    try {
      const conversation = await loadConversation(this.agent, this.contextId);
      if (!conversation) {
        note.textContent = t("conversationGone");
        this.app.gone(this);
        return;
      }
      this.title = conversation.title;
      const nodes = [];
      const follow = [];
      for (const task of conversation.tasks) {
        const shown = renderTask(task, this.agent, this.hooks);
        nodes.push(...shown.nodes);
        this.turns.push(shown.last);
        if (shown.last.running && shown.last.state !== "input-required")
          follow.push([task.id, shown]);
      }
      note.remove();
      this.list.prepend(...nodes);
      for (const [taskId, shown] of follow) this.#follow(taskId, shown);
    } catch (error) {
      note.textContent = t("conversationFailed", error.message);
    }
  }

  /** Follows a restored running task, redrawn from the snapshot SubscribeToTask opens with. */
  #follow(taskId, shown) {
    const entry = { turn: shown.last };
    entry.snapshot = (task) => {
      if (!Array.isArray(task.history)) return;
      const fresh = renderTask(task, this.agent, this.hooks);
      shown.nodes[0]?.before(...fresh.nodes);
      for (const node of shown.nodes) node.remove();
      this.turns[this.turns.indexOf(entry.turn)] = fresh.last;
      entry.turn = fresh.last;
      shown = fresh;
      entry.turn.live = true;
    };
    entry.turn.live = true;
    this.#pipe(entry, "SubscribeToTask", { id: taskId }).catch((error) =>
      entry.turn.fail(error.message),
    );
  }

  /** Sends a message (an answer to a waiting task when `taskId` is given). */
  async send(parts, taskId) {
    const turn = new Turn(this.agent, this.hooks);
    turn.live = true;
    this.list.append(userBubble(parts), turn.node);
    this.turns.push(turn);
    this.app.changed(this, turn, { sent: true });
    const before = this.ready;
    let release;
    this.ready = new Promise((resolve) => {
      release = resolve;
    });
    await before;
    const message = {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts,
      ...(this.contextId ? { contextId: this.contextId } : {}),
      ...(taskId ? { taskId } : {}),
    };
    const entry = { turn, started: release, first: titleOf(parts) };
    try {
      await this.#pipe(entry, "SendStreamingMessage", { message });
    } catch (error) {
      turn.fail(error.message);
    } finally {
      release();
    }
  }

  /** The newest task that works now (a message typed meanwhile steers it), or null. */
  get working() {
    const turn = this.running;
    return turn?.state === "working" ? turn : null;
  }

  /**
   * Sends `parts` to the working task as a live message (the live-messages extension): it is
   * answered at once and reaches the model at the task's next step; the task's stream shows it
   * among the turn's events. A refusal (the task ended meanwhile) is sent as a new message.
   */
  async steer(parts) {
    const turn = this.working;
    if (!turn) return this.send(parts);
    const message = {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts,
      taskId: turn.taskId,
      contextId: turn.contextId,
    };
    try {
      await rpc(this.agent, "SendLiveMessage", { message });
    } catch {
      await this.send(parts);
    }
  }

  /** Cancels the newest running task. */
  async stop() {
    const turn = this.running;
    if (!turn) return;
    try {
      const task = await rpc(this.agent, "CancelTask", { id: turn.taskId });
      if (!turn.streaming) turn.setState(task.status);
    } catch (error) {
      turn.fail(t("couldNotStop", error.message));
    }
  }

  /** Stops reading this view's streams (their tasks go on); a send not yet started still goes out. */
  close() {
    this.closed = true;
    for (const entry of this.streams) if (entry.turn.taskId) entry.controller.abort();
  }

  /** Reads a stream into `entry.turn`, resuming with SubscribeToTask after a drop. */
  async #pipe(entry, method, params) {
    entry.controller = new AbortController();
    entry.turn.streaming = true;
    this.streams.add(entry);
    let lastSeq = null;
    let opened = false;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await stream(this.agent, method, params, {
            signal: entry.controller.signal,
            lastEventId: lastSeq,
            onEvent: (result, seq) => {
              if (seq) lastSeq = seq;
              if (!opened && result.task) entry.snapshot?.(result.task);
              opened = true;
              this.#event(entry, result);
            },
          });
        } catch (error) {
          // A JSON-RPC or HTTP error is an answer; anything else is a dropped connection.
          if (entry.controller.signal.aborted) return;
          if (!entry.turn.taskId || error.status) throw error;
        }
        const turn = entry.turn;
        if (!turn.running || this.closed || turn.state.endsWith("-required")) return;
        if (attempt > RESUME_ATTEMPTS) throw new Error(t("streamDropped"));
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
        method = "SubscribeToTask";
        params = { id: turn.taskId };
      }
    } finally {
      this.streams.delete(entry);
      entry.turn.streaming = false;
      this.app.ended(this, entry.turn);
    }
  }

  #event(entry, result) {
    const turn = entry.turn;
    const first = !turn.taskId;
    turn.event(result);
    if (first && turn.taskId) {
      if (!this.contextId) this.contextId = turn.contextId;
      this.app.started(this, turn, entry.first);
      entry.started?.();
      if (this.closed) entry.controller.abort();
    }
  }
}
