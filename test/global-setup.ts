/**
 * Runs once in Node before the workerd tests: starts the scripted Anthropic Messages API, a
 * small MCP server and a push notification receiver on 127.0.0.1 (any free ports) and provides
 * their addresses to the pool config.
 */
import type { TestProject } from "vitest/node";
import { startFakeMcp } from "./fake-mcp/server.ts";
import { startFakeModel } from "./fake-model/server.ts";
import { startFakePush } from "./fake-push/server.ts";

/** The bearer token the test MCP server requires (the researcher's DOCS_MCP_TOKEN in tests). */
export const TEST_MCP_TOKEN = "mcp-test-token";

declare module "vitest" {
  export interface ProvidedContext {
    fakeModelPort: number;
    fakeMcpUrl: string;
    fakePushUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startFakeModel({ port: 0 });
  const mcp = await startFakeMcp({ token: TEST_MCP_TOKEN });
  project.provide("fakeModelPort", server.port);
  const push = await startFakePush();
  project.provide("fakeMcpUrl", mcp.url);
  project.provide("fakePushUrl", push.url);
  return async () => {
    await push.close();
    await mcp.close();
    await server.close();
  };
}
