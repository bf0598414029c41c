/** What tests expect of the agent cards the harness builds. */

/**
 * The protocol and transport fields of a v0.3 card for an agent served at `endpoint` (ending in
 * "/"): JSON-RPC there, preferred; HTTP+JSON at the same path without the slash.
 */
export function v03CardTransports(endpoint: string): Record<string, unknown> {
  return {
    protocolVersion: "0.3.0",
    url: endpoint,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: endpoint, transport: "JSONRPC" },
      { url: endpoint.replace(/\/$/, ""), transport: "HTTP+JSON" },
    ],
  };
}
