/**
 * Reads an ACTS corpus from a folder as data: the master file (`suite.acts.yaml`, whose `include`
 * lists the files in order) or, without one, every `*.acts.yaml` there; each file parsed with the
 * `yaml` package and checked against the format (model.ts), a file that does not fit refused with
 * its name and the first problem. Node only (reads files).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parse } from "yaml";
import { Document, type Suite } from "./model.ts";

/** One file of the corpus: its name, the spec version it targets, its variables and suites. */
export interface CorpusFile {
  file: string;
  specVersion: string;
  variables: Record<string, string>;
  suites: Suite[];
}

/** Raised for a corpus that cannot be read; the message names the file and what is wrong. */
export class CorpusError extends Error {
  override readonly name = "CorpusError";
}

const MASTER = "suite.acts.yaml";

function readDocument(path: string): Document {
  let data: unknown;
  try {
    data = parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new CorpusError(
      `${basename(path)}: not YAML (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const parsed = Document.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CorpusError(
      `${basename(path)}: ${issue?.path.join(".") || "document"}: ${issue?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}

/** The corpus in `dir`, file by file, in the master file's order. */
export function readCorpus(dir: string): CorpusFile[] {
  if (!existsSync(dir)) throw new CorpusError(`no ACTS corpus in ${dir}`);
  const master = join(dir, MASTER);
  const shared: Record<string, string> = {};
  let files: string[];
  if (existsSync(master)) {
    const doc = readDocument(master);
    Object.assign(shared, doc.variables);
    files = doc.include ?? [];
  } else
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".acts.yaml"))
      .sort();
  return files.map((file) => {
    const doc = readDocument(join(dir, file));
    return {
      file,
      specVersion: doc.spec_version,
      variables: { ...shared, ...doc.variables },
      suites: doc.suites ?? [],
    };
  });
}
