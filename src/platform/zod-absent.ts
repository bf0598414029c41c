/**
 * What the deployed bundle has in place of two zod modules nothing here calls
 * (scripts/bundle-worker.ts maps zod's `core/compile.js` and `classic/from-json-schema.js` here;
 * `npm run dev` and the tests keep zod whole): `z.compile`, zod's ahead-of-time schema compiler,
 * which generates validators with `new Function` (a Worker refuses it, so in a Worker it would only
 * ever hand the schema back), and `z.fromJSONSchema`. zod's classic API exports both on its one
 * namespace, which no bundler can shake out; they were ~45 KB of the minified bundle. The names
 * are zod's, so every import of them still resolves; if anything called one, this says why it is
 * missing instead of failing obscurely.
 */
const ABSENT = (api: string) =>
  new Error(
    `zod's ${api} is not in this Worker's deployed bundle (scripts/bundle-worker.ts leaves it out)`,
  );

/** zod's marker of a compiled fast path's failure (the same symbol zod's parser checks). */
export const INVALID: unique symbol = Symbol.for("zod.compile.invalid");

/** Stands in for zod's `ZodCompileAsyncError`. */
export class ZodCompileAsyncError extends Error {}

/** Stands in for zod's `ZodCompileUnsupportedError`. */
export class ZodCompileUnsupportedError extends Error {}

/** Stands in for `z.compile`. */
export function compile(): never {
  throw ABSENT("compile");
}

/** Stands in for `z.withParser`. */
export function withParser(): never {
  throw ABSENT("withParser");
}

/** Stands in for zod's `compileFn`. */
export function compileFn(): never {
  throw ABSENT("compileFn");
}

/** Stands in for `z.fromJSONSchema`. */
export function fromJSONSchema(): never {
  throw ABSENT("fromJSONSchema");
}
