/**
 * What Node's `parseArgs` threw, as one line in a tool's own words (never Node's parser text):
 * the CLI's and the npm scripts' command lines say what is wrong the same way. Pure.
 */

/** The line for an error `parseArgs` threw (its message, for an error of another kind). */
export function parserProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  // The long form where Node names both ("'-h, --help'").
  const option = /'(?:-\w, )?(-[^' ]+)/.exec(message ?? "")?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${option}`;
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    return `unexpected argument ${/'([^']+)'/.exec(message ?? "")?.[1] ?? ""}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE")
    return /argument missing/.test(message ?? "")
      ? `${option} needs a value`
      : `${option} takes no value`;
  return String(message ?? error);
}
