/**
 * Which A2A protocol version a request speaks: the `A2A-Version` header, else the `A2A-Version`
 * query parameter, else (spec 3.6.2) 0.3. Only Major.Minor counts. Pure: no I/O.
 */

/** The protocol generations the surface speaks. */
export type A2AVersion = "1.0" | "0.3";

/** True when `version` (as {@link requestedVersion} reads it) is one the surface speaks. */
export const isA2AVersion = (version: string): version is A2AVersion =>
  version === "1.0" || version === "0.3";

/** Versions this server speaks on its JSON-RPC endpoints. */
export const SUPPORTED_VERSIONS: readonly string[] = ["1.0", "0.3"];

/** The requested version as Major.Minor (`""` and absent mean 0.3); unparseable values are returned as given. */
export function requestedVersion(request: Request): string {
  const header = request.headers.get("A2A-Version");
  const query = new URL(request.url).searchParams.get("A2A-Version");
  const raw = (header ?? query ?? "").trim();
  if (raw === "") return "0.3";
  const match = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(raw);
  if (!match) return raw;
  return `${Number(match[1])}.${Number(match[2] ?? 0)}`;
}

/** A client-facing explanation for an unsupported version. */
export function unsupportedVersionMessage(version: string, _sentHeader = true): string {
  return `A2A protocol version ${version.slice(0, 20)} is not supported. Supported versions: ${SUPPORTED_VERSIONS.join(", ")} (send the header A2A-Version: 1.0; no header means 0.3).`;
}
