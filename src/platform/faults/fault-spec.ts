/**
 * The fault injector's rules (`FAULTS`, dev and tests only): a comma list of
 * `target:kind:rate[:times]`, parsed with zod. Pure: no I/O.
 *
 * - `target`: what is hit — a Durable Object binding's calls (`users`, `task`, `workspace`,
 *   `context`, `events`, `retention`), one method of it (`users.reserve`, `workspace.write`),
 *   `d1`, `r2` or one R2 operation (`r2.put`), or `model` (the Messages API call).
 * - `kind`: `error` (fails before reaching the callee: nothing happened), `lost` (the call runs,
 *   its answer is lost on the way back), `overloaded` (refused as an overloaded object),
 *   `reset` (the object is reset as the call reaches it; objects only), `delay<ms>` (answers
 *   late), or an HTTP status of 400-599 (`model` only: the API answers with it).
 * - `rate`: the chance, 0 to 1, that one call is hit.
 * - `times`: at most this many hits (per isolate); none: no bound.
 *
 * Example: `users.reserve:error:0.3,d1:lost:0.1,model:529:0.2,task:reset:0.05`.
 */
import { z } from "zod";
import { lazy } from "../../utils/lazy.ts";

/** What a hit does to the call. */
export type FaultKind =
  | { type: "error" | "lost" | "overloaded" | "reset" }
  | { type: "delay"; ms: number }
  | { type: "status"; status: number };

/** One rule. */
export interface FaultRule {
  target: string;
  kind: FaultKind;
  rate: number;
  times: number | null;
}

const OBJECTS = ["users", "task", "workspace", "context", "events", "retention"];

const faultKind = () =>
  z.string().transform((text, ctx): FaultKind => {
    if (text === "error" || text === "lost" || text === "overloaded" || text === "reset")
      return { type: text };
    const delay = /^delay(\d{1,6})$/.exec(text);
    if (delay) return { type: "delay", ms: Number(delay[1]) };
    if (/^[45]\d\d$/.test(text)) return { type: "status", status: Number(text) };
    ctx.addIssue({
      code: "custom",
      message: `unknown fault "${text}" (error, lost, overloaded, reset, delay<ms> or an HTTP status)`,
    });
    return z.NEVER;
  });

/** One rule's text as a {@link FaultRule}, built on first use. */
const ruleSchema = lazy(() =>
  z
    .string()
    .transform((text) => text.trim().split(":"))
    .pipe(
      z.union([
        z.tuple([z.string(), z.string(), z.string()]),
        z.tuple([z.string(), z.string(), z.string(), z.string()]),
      ]),
    )
    .transform(([target, k, rate, times]) => ({ target, kind: k, rate, times: times ?? "" }))
    .pipe(
      z.object({
        target: z.string().regex(/^(model|d1|r2(\.\w+)?|[a-z]+(\.\w+)?)$/, "not a fault target"),
        kind: faultKind(),
        rate: z.string().transform(Number).pipe(z.number().min(0).max(1)),
        times: z
          .string()
          .transform((v) => (v === "" ? null : Number(v)))
          .pipe(z.number().int().min(1).nullable()),
      }),
    )
    .superRefine((r, ctx) => {
      const base = r.target.split(".")[0] ?? "";
      const object = OBJECTS.includes(base);
      if (!object && !["model", "d1", "r2"].includes(base))
        ctx.addIssue({ code: "custom", message: `unknown fault target "${r.target}"` });
      if (r.kind.type === "reset" && !object)
        ctx.addIssue({ code: "custom", message: `only an object can be reset, not "${r.target}"` });
      if (r.kind.type === "status" && base !== "model")
        ctx.addIssue({
          code: "custom",
          message: `an HTTP status is a model fault, not "${r.target}"`,
        });
    })
    .transform((r): FaultRule => r),
);

/** `FAULTS`' rules (empty or unset: none); throws an error naming the rule and what is wrong. */
export function parseFaults(text: string | undefined): FaultRule[] {
  if (!text || text.trim() === "") return [];
  return text
    .split(",")
    .filter((one) => one.trim() !== "")
    .map((one) => {
      const parsed = ruleSchema().safeParse(one);
      if (parsed.success) return parsed.data;
      const why = parsed.error.issues.map((issue) => issue.message).join("; ");
      throw new Error(`FAULTS rule "${one.trim()}": ${why}`);
    });
}

/** Whether `rule` targets the call named `name` (`users` hits `users.reserve`). */
export const targets = (rule: FaultRule, name: string): boolean =>
  name === rule.target || name.startsWith(`${rule.target}.`);
