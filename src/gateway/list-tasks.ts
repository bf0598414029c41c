/**
 * ListTasks from the D1 task index (spec 3.1.4): the caller's tasks of one agent, newest status
 * first, filtered by context, state and last update, in cursor pages (the token is the last row's
 * update time and id). Tasks come from the index alone unless history or artifacts are asked for;
 * then each is read from its task object, a few at a time. The index follows the task objects by
 * a few milliseconds.
 */
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { ListTasksParams } from "../protocol/params.ts";
import { storedTaskState } from "../protocol/task-states.ts";
import type { Task } from "../protocol/wire.ts";
import { listTaskIndex, type TaskIndexRow } from "../store/d1-index.ts";

/** Default and largest page size. */
export const DEFAULT_PAGE_SIZE = 50;
const FETCH_CONCURRENCY = 6;

/** ListTasks parameters in wire form (validated at the edge by protocol/params.ts). */
export type ListTasksInput = ListTasksParams;

/** One page in wire form. */
export interface ListTasksPage {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

const encodeToken = (row: TaskIndexRow) =>
  btoa(JSON.stringify([row.updatedAt, row.id])).replace(/=+$/, "");

function decodeToken(token: string): { updatedAt: string; id: string } {
  try {
    const parsed: unknown = JSON.parse(atob(token));
    const [updatedAt, id] = Array.isArray(parsed) ? parsed : [];
    if (typeof updatedAt === "string" && typeof id === "string") return { updatedAt, id };
  } catch {
    // fall through
  }
  throw new RequestMalformedError("pageToken is not a token this server issued");
}

/** A Task built from its index row (status and metadata, no history or artifacts). */
export function taskFromIndex(row: TaskIndexRow): Task {
  return {
    id: row.id,
    contextId: row.contextId,
    status: { state: storedTaskState(row.state), timestamp: row.updatedAt },
    metadata: {
      owner: row.owner,
      traceId: row.traceId,
      agent: row.agent,
      ...(row.parentTaskId ? { parentTaskId: row.parentTaskId } : {}),
      usage: {
        inputTokens: row.inputTokens,
        outputTokens: row.outputTokens,
        cacheReadTokens: row.cacheReadTokens,
        cacheWriteTokens: row.cacheWriteTokens,
        modelCalls: row.modelCalls,
      },
    },
  };
}

/** Reads one page; `readTask` fetches a full task from its object when details are asked for. */
export async function listTasks(
  db: D1Database,
  scope: { owner: string; agent: string },
  input: ListTasksInput,
  readTask: (id: string, historyLength: number | undefined) => Promise<Task | null>,
): Promise<ListTasksPage> {
  const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE;
  const { rows, total } = await listTaskIndex(db, {
    ...scope,
    ...(input.contextId ? { contextId: input.contextId } : {}),
    ...(input.status ? { state: input.status } : {}),
    ...(input.statusTimestampAfter
      ? { updatedAfter: new Date(input.statusTimestampAfter).toISOString() }
      : {}),
    ...(input.pageToken ? { after: decodeToken(input.pageToken) } : {}),
    limit: pageSize + 1,
  });
  const page = rows.slice(0, pageSize);
  const detailed = (input.historyLength ?? 0) > 0 || input.includeArtifacts === true;
  const tasks = detailed ? await readAll(page, input, readTask) : page.map(taskFromIndex);
  const last = page.at(-1);
  return {
    tasks,
    nextPageToken: rows.length > pageSize && last ? encodeToken(last) : "",
    pageSize,
    totalSize: total,
  };
}

async function readAll(
  rows: TaskIndexRow[],
  input: ListTasksInput,
  readTask: (id: string, historyLength: number | undefined) => Promise<Task | null>,
): Promise<Task[]> {
  const out: Task[] = new Array(rows.length);
  // The workers share one iterator: each takes the next row it has not taken.
  const queue = rows.entries();
  const worker = async () => {
    for (const [i, row] of queue) {
      const full = (await readTask(row.id, input.historyLength ?? 0)) ?? taskFromIndex(row);
      const { artifacts, ...rest } = full;
      out[i] = input.includeArtifacts ? { ...rest, artifacts: artifacts ?? [] } : rest;
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, rows.length) }, worker));
  return out;
}
