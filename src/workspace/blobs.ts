/**
 * Content-addressed blobs of a workspace in R2: a file's UTF-8 bytes live at
 * `agents/<agent>/users/<owner>/blobs/<sha256 hex>`, written once and never changed. Blobs are
 * not garbage-collected: one may be referenced by the manifest or any checkpoint.
 */
import { userKey } from "../store/r2-keys.ts";
import type { WorkspaceScope } from "./keys.ts";

/** Lowercase hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** The R2 key of a blob. */
export function blobKey(scope: WorkspaceScope, hash: string): string {
  return userKey(scope.agent, scope.owner, `blobs/${hash}`);
}

/** The blobs of one workspace. */
export class Blobs {
  readonly #bucket: R2Bucket;
  readonly #scope: WorkspaceScope;

  constructor(bucket: R2Bucket, scope: WorkspaceScope) {
    this.#bucket = bucket;
    this.#scope = scope;
  }

  /** Stores `bytes` under their hash. */
  async put(hash: string, bytes: Uint8Array): Promise<void> {
    await this.#bucket.put(blobKey(this.#scope, hash), bytes, {
      httpMetadata: { contentType: "text/plain; charset=utf-8" },
      sha256: hash,
    });
  }

  /** The text of blob `hash`, or null when R2 has no such object. */
  async text(hash: string): Promise<string | null> {
    const object = await this.#bucket.get(blobKey(this.#scope, hash));
    return object === null ? null : object.text();
  }
}
