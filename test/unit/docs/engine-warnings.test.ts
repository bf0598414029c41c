/// <reference types="vite/client" />
/**
 * The README explains `npm ci`'s engine warnings on Node 20: its paragraph names every package of
 * the lockfile that npm warns about there (one whose `engines.node` admits no Node 20), so a new
 * one is explained when it comes in. The README and the lockfile come in through Vite at build
 * time (workerd has no file system).
 */
import { describe, expect, it } from "vitest";

const files = import.meta.glob<string>(["/README.md", "/package-lock.json"], {
  query: "?raw",
  import: "default",
  eager: true,
});
const raw = (path: string) => files[path] ?? "";

/** Whether a range of `engines.node` admits a Node 20 (`>=N` with N <= 20, `^20`, `20.x`...). */
function admitsNode20(range: string): boolean {
  return range.split("||").some((part) => {
    const alternative = part.trim();
    const atLeast = /^>=?\s*(\d+)/.exec(alternative);
    if (atLeast) return Number(atLeast[1]) <= 20;
    return /^[~^]?20(\.|$)/.test(alternative) || alternative === "*" || alternative === "";
  });
}

describe("npm ci's engine warnings", () => {
  it("are explained in the README, naming every package that asks for a newer Node", () => {
    const lock = JSON.parse(raw("/package-lock.json")) as {
      packages: Record<string, { engines?: { node?: string }; optional?: boolean; os?: string[] }>;
    };
    const warned = Object.entries(lock.packages)
      .filter(([path, meta]) => path !== "" && !meta.optional && meta.engines?.node)
      .filter(([, meta]) => !admitsNode20(meta.engines?.node ?? ""))
      .map(([path]) => path.replace(/^.*node_modules\//, ""));
    expect(warned).toContain("wrangler");
    const readme = raw("/README.md");
    const paragraph = /\*\*`npm ci`'s engine warnings\.\*\*([\s\S]*?)\n\n/.exec(readme)?.[1] ?? "";
    expect(paragraph).toContain("EBADENGINE");
    // A scoped package is named, or its whole scope (`@scope/*`).
    for (const name of warned) {
      const scope = name.startsWith("@") ? `\`${name.split("/")[0]}/*\`` : null;
      const named =
        paragraph.includes(`\`${name}\``) || (scope !== null && paragraph.includes(scope));
      expect(named, name).toBe(true);
    }
  });
});
