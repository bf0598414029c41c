/**
 * How an entry of the method table (methods.ts) is built: a {@link Method} closes over a typed
 * operation (operations.ts), the reader of its params (the operation's own schema, built by its
 * first call, or a dialect's schema and its translation) and the writer of its answer, so the
 * bindings run it without knowing its types; {@link http} gives it an HTTP+JSON route.
 */
import type { z } from "zod";
import { invalidParams } from "../edge/errors.ts";
import type { GatewayEvent } from "../gateway/task-gateway.ts";
import type { Message, StreamEvent } from "../protocol/wire.ts";
import type { CallContext } from "./call-context.ts";
import type * as op from "./operations.ts";
import type { A2AVersion } from "./version.ts";

/** A stream event as a binding sends it: its sequence number (the SSE id) and its answer. */
export interface AnsweredEvent {
  seq: number | null;
  answer: unknown;
}

/** A call whose params were validated: what it sends, and how it runs. */
export type Call =
  | { streaming: false; message: Message | null; run(ctx: CallContext): Promise<unknown> }
  | {
      streaming: true;
      message: Message | null;
      run(ctx: CallContext): AsyncGenerator<AnsweredEvent, void>;
    };

/** One method as a binding runs it, its params' and answer's types closed over. */
export interface Method {
  /** The operation it runs (operations.ts): the same for a method's counterpart in the other version. */
  readonly op: string;
  /** It answers with a stream (SSE): a stream lease. */
  readonly streaming: boolean;
  /** It sends a message: the message rate, consent. */
  readonly sends: boolean;
  /** v0.3's authenticated extended card: refused to an anonymous caller (extended-card.ts). */
  readonly refusesAnonymous: boolean;
  /** Validates `input` (a -32602 naming each field under `prefix`); the call, ready to run. */
  prepare(input: unknown, prefix: string): Call;
}

/** Where an HTTP+JSON call's params come from, besides the path's variables. */
export type ParamsFrom = "body" | "query" | "path";

/** A method's HTTP+JSON route. */
export interface HttpRoute {
  version: A2AVersion;
  /** The method's JSON-RPC name: the route's name in the table. */
  name: string;
  verbs: readonly string[];
  /** The path under the agent's URL; `{field}` is a params field, the first one the task id. */
  path: string;
  from: ParamsFrom;
  /** A body as the v1.0 params it stands for, before the path's variables join it. */
  decode?(body: unknown): unknown;
  /** The HTTP status of an answer: 201 made, 204 gone (no body). */
  status: 200 | 201 | 204;
  /** What the request's log line names it (`POST send`): the operation's family. */
  label: string;
  method: Method;
}

/** One entry of the table: the method over JSON-RPC, and its HTTP+JSON route if it has one. */
export interface Entry {
  rpc: Method;
  http: Omit<HttpRoute, "version" | "name"> | null;
}

/** `input` validated by `schema`, or a -32602 naming each field under `prefix`. */
export function parsed<P>(schema: z.ZodType<P>, input: unknown, prefix: string): P {
  const result = schema.safeParse(input);
  if (!result.success) throw invalidParams(result.error, prefix);
  return result.data;
}

/** Params read in a shape of their own (v0.3's), validated by its schema, then translated. */
class Translated<P> {
  readonly read: (input: unknown, prefix: string) => P;
  constructor(read: (input: unknown, prefix: string) => P) {
    this.read = read;
  }
}

/** A schema as the table holds it: built by its first call (protocol/params.ts), not at load. */
export type SchemaOf<P> = () => z.ZodType<P>;

/** Params validated by `schema` in their own shape, as `translate` makes them an operation's. */
export const translated = <I, P>(schema: SchemaOf<I>, translate: (input: I) => P) =>
  new Translated((input, prefix) => translate(parsed(schema(), input, prefix)));

/** How a method reads its params: the operation's own schema, or a translation to them. */
export type ParamsOf<P> = SchemaOf<P> | Translated<P>;

const reader =
  <P>(params: ParamsOf<P>) =>
  (input: unknown, prefix: string): P =>
    params instanceof Translated ? params.read(input, prefix) : parsed(params(), input, prefix);

/** A unary method: `operation` on the params it reads, answered as `answer` writes its result. */
export function unary<P, R>(
  operation: op.Unary<P, R>,
  params: ParamsOf<P>,
  answer: (result: R) => unknown = (result) => result,
  refusesAnonymous = false,
): Method {
  const read = reader(params);
  return {
    op: operation.name,
    streaming: false,
    sends: operation.message !== undefined,
    refusesAnonymous,
    prepare(input, prefix) {
      const params = read(input, prefix);
      return {
        streaming: false,
        message: operation.message?.(params) ?? null,
        run: async (ctx) => answer(await operation.run(ctx, params)),
      };
    },
  };
}

async function* answered(
  events: AsyncGenerator<GatewayEvent, void>,
  answer: (event: StreamEvent) => unknown,
): AsyncGenerator<AnsweredEvent, void> {
  for await (const { seq, event } of events) yield { seq, answer: answer(event) };
}

/** A streaming method: `operation` on the params it reads, each event as `answer` writes it. */
export function streaming<P>(
  operation: op.Streaming<P>,
  params: ParamsOf<P>,
  answer: (event: StreamEvent) => unknown = (event) => event,
): Method {
  const read = reader(params);
  return {
    op: operation.name,
    streaming: true,
    sends: operation.message !== undefined,
    refusesAnonymous: false,
    prepare(input, prefix) {
      const params = read(input, prefix);
      return {
        streaming: true,
        message: operation.message?.(params) ?? null,
        run: (ctx) => answered(operation.run(ctx, params), answer),
      };
    },
  };
}

/** An HTTP+JSON route of `verb`(s) at `path`, running `method`. */
export function http(
  verbs: string | readonly string[],
  path: string,
  method: Method,
  label: string,
  options: { from?: ParamsFrom; status?: 201 | 204; decode?(body: unknown): unknown } = {},
): Entry["http"] {
  return {
    verbs: typeof verbs === "string" ? [verbs] : verbs,
    path,
    method,
    label,
    from: options.from ?? "path",
    status: options.status ?? 200,
    ...(options.decode ? { decode: options.decode } : {}),
  };
}
