/// <reference types="vite/client" />
/**
 * The README and docs/ link to each other and to files of the repository: every relative link
 * must name a file that exists and, with a `#fragment`, a heading of that Markdown file (GitHub's
 * anchor rules). The Markdown and the repository's file list come in through Vite at build time
 * (`import.meta.glob`), since the test runs in workerd, which has no file system.
 */
import { describe, expect, it } from "vitest";

const markdown: Record<string, string> = import.meta.glob<string>(["/README.md", "/docs/*.md"], {
  query: "?raw",
  import: "default",
  eager: true,
});
const files = Object.keys(
  import.meta.glob(["/*", "/{docs,src,cli,scripts,bench,test,agents,migrations,bin}/**/*"]),
);

/** Text outside fenced code blocks. */
const outsideFences = (text: string) =>
  text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");

/** Text outside fenced code blocks and inline code spans, where links are links. */
const prose = (text: string) => outsideFences(text).replace(/`+[^`\n]*`+/g, "");

/**
 * The anchors of a Markdown file: its headings', as GitHub makes them (duplicates get -1, -2...),
 * and the explicit ones (`<a id="x"></a>` or `<a name="x"></a>`, which GitHub keeps).
 */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of outsideFences(text).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const slug = (heading ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    out.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of outsideFences(text).matchAll(/<a (?:id|name)="([^"]+)"><\/a>/g))
    if (id) out.add(id);
  return out;
}

/** `/docs/a.md` + `../README.md` -> `/README.md`. */
function resolve(from: string, target: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const segment of target.split("/")) {
    if (segment === "..") parts.pop();
    else if (segment !== "." && segment !== "") parts.push(segment);
  }
  return `/${parts.filter(Boolean).join("/")}`;
}

/** Every relative link of a file that names no file, or no heading of the file it names. */
function brokenLinks(path: string, text: string): string[] {
  const broken: string[] = [];
  for (const [, target = ""] of prose(text).matchAll(
    /!?\[[^\]]*\]\(<?([^)\s>]+)>?(?: "[^"]*")?\)/g,
  )) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
    const [file = "", fragment] = target.split("#");
    const resolved = file === "" ? path : resolve(path, file);
    const exists =
      files.includes(resolved) ||
      files.some((f) => f.startsWith(`${resolved.replace(/\/$/, "")}/`));
    if (!exists) broken.push(`${path}: ${target} (no such file)`);
    else if (fragment !== undefined) {
      const headings = markdown[resolved];
      if (headings === undefined) broken.push(`${path}: ${target} (not a README or docs/ file)`);
      else if (!anchors(headings).has(decodeURIComponent(fragment)))
        broken.push(`${path}: ${target} (no such heading)`);
    }
  }
  return broken;
}

describe("documentation links", () => {
  it("README and every docs/ file link only to files and headings that exist", () => {
    expect(Object.keys(markdown)).toContain("/README.md");
    expect(Object.keys(markdown).length).toBeGreaterThan(5);
    expect(Object.entries(markdown).flatMap(([path, text]) => brokenLinks(path, text))).toEqual([]);
  });

  it("the README links every docs/ file", () => {
    const readme = markdown["/README.md"] ?? "";
    const docs = Object.keys(markdown).filter((p) => p.startsWith("/docs/"));
    expect(docs.filter((p) => !readme.includes(`](${p.slice(1)})`))).toEqual([]);
  });

  it("finds a broken file, a broken anchor and GitHub's anchors", () => {
    expect(brokenLinks("/docs/x.md", "[a](nope.md) [b](../README.md#nope) `[c](nope.md)`")).toEqual(
      ["/docs/x.md: nope.md (no such file)", "/docs/x.md: ../README.md#nope (no such heading)"],
    );
    expect(
      brokenLinks("/README.md", "[a](docs/console.png) [b](#two-commands) [c](https://x.y/z)"),
    ).toEqual([]);
    expect([
      ...anchors(
        '# Code execution (`run_code`)\n## Users, access and limits\n## A\n## A\n- <a id="b"></a>**B.**',
      ),
    ]).toEqual(["code-execution-run_code", "users-access-and-limits", "a", "a-1", "b"]);
  });
});
