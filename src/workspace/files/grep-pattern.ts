/**
 * The model's grep pattern as a matcher whose time grows linearly with the text it reads, however
 * the pattern is written: a pattern a backtracking engine would take exponential (`(a+)+$`) or
 * polynomial (`.*a.*a.*b`) time over (one such burned an object's CPU for seconds on one long
 * line) runs on RE2's automata (`re2js`, a JavaScript port of RE2, loaded at the first such grep).
 * A pattern without any repetition (`TODO|FIXME`, `\bfoo\b`) cannot backtrack past its own length
 * at each position, and keeps V8's own RegExp, several times faster. JavaScript syntax either way,
 * less what no linear-time engine has: lookahead, lookbehind and backreferences are refused, with
 * the reason.
 */
import { MAX_GREP_PATTERN } from "../limits.ts";
import type { WsResult } from "../types.ts";

/** What grep asks of a compiled pattern: does this line match. */
export interface LineMatcher {
  test(line: string): boolean;
}

/**
 * Whether `pattern` repeats anything (a `*`, `+`, `?` or `{n,m}` quantifier) or looks around or
 * back (`(?=`, `(?!`, `(?<=`, `(?<!`, `\1`, `\k<name>`): false means V8 matches it in linear
 * time. Escapes and character classes are skipped whole.
 */
export function mayBacktrack(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9k]/.test(next)) return true;
      i += 1;
    } else if (c === "[") {
      for (i += 1; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i += 1;
    } else if (c === "(" && pattern[i + 1] === "?") {
      const kind = pattern.slice(i + 2, i + 4);
      if (kind[0] === "=" || kind[0] === "!" || kind === "<=" || kind === "<!") return true;
      i += 1; // `(?:` and `(?<name>`: the `?` is no quantifier
    } else if (c === "*" || c === "+" || c === "?" || (c === "{" && /^\{\d/.test(pattern.slice(i))))
      return true;
  }
  return false;
}

let re2: Promise<typeof import("re2js")> | null = null;

/** The pattern on RE2's automata, or why RE2 refuses it. */
async function linear(pattern: string): Promise<WsResult<LineMatcher>> {
  re2 ??= import("re2js");
  const { RE2JS } = await re2;
  try {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return { ok: true, value: { test: (line) => compiled.test(line) } };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: `invalid regular expression: ${why}. grep_files matches in time linear in the text, so lookahead, lookbehind and backreferences are not available; escape special characters such as ( [ . * + ? with a backslash to match them literally`,
    };
  }
}

/** The model's pattern as a {@link LineMatcher}, or why it is refused. */
export async function compilePattern(pattern: string): Promise<WsResult<LineMatcher>> {
  if (pattern === "") return { ok: false, error: "pattern is empty" };
  if (pattern.length > MAX_GREP_PATTERN) {
    return {
      ok: false,
      error: `pattern is ${pattern.length} characters long; the limit is ${MAX_GREP_PATTERN}`,
    };
  }
  let native: RegExp;
  try {
    native = new RegExp(pattern);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: `invalid regular expression (JavaScript syntax): ${why}. Escape special characters such as ( [ . * + ? with a backslash to match them literally`,
    };
  }
  return mayBacktrack(pattern) ? linear(pattern) : { ok: true, value: native };
}
