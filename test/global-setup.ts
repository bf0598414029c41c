/**
 * Runs once in Node before the workerd tests: starts the scripted Anthropic Messages API on
 * 127.0.0.1 (port 0) and provides its port to the pool config.
 */
import type { TestProject } from "vitest/node";
import { startFakeModel } from "./fake-model/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    fakeModelPort: number;
  }
}

export default async function setup(project: TestProject) {
  const server = await startFakeModel({ port: 0 });
  project.provide("fakeModelPort", server.port);
  return async () => {
    await server.close();
  };
}
