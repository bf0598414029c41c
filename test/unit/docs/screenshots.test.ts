/// <reference types="vite/client" />
/**
 * The README lists the console screenshots the browser tests write to test-results/console/:
 * the names it gives are exactly the `join(shots, "<name>.png")` of test/e2e/console*.test.ts.
 * The files come in through Vite at build time (workerd has no file system).
 */
import { describe, expect, it } from "vitest";

const readme = Object.values(
  import.meta.glob<string>("/README.md", { query: "?raw", import: "default", eager: true }),
)[0] as string;
const consoleTests = import.meta.glob<string>("/test/e2e/console*.test.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});

describe("the README's console screenshots", () => {
  it("names every screenshot the console tests write, and no other", () => {
    const written = Object.values(consoleTests)
      .flatMap((text) => [...text.matchAll(/join\(shots, "([a-z0-9-]+\.png)"\)/g)])
      .map((match) => match[1] as string);
    expect(written.length).toBeGreaterThan(0);
    const paragraph = /screenshots land in `test-results\/console\/`:([\s\S]*?)\n\n/.exec(
      readme,
    )?.[1];
    expect(paragraph, "the README's screenshot list").toBeDefined();
    const listed = [...(paragraph ?? "").matchAll(/`([a-z0-9-]+\.png)`/g)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual([...new Set(written)].sort());
  });
});
