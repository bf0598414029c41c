/**
 * Content-addressed blobs of a workspace in R2: a file's bytes live at
 * `agents/<agent>/users/<owner>/blobs/<sha256 hex>`, written once and never changed. Blobs are
 * not garbage-collected: one may be referenced by the manifest or any checkpoint. A blob is text
 * when its bytes are UTF-8 (everything the tools write); an upload's may not be: {@link NOT_TEXT}.
 */

import { decodeUtf8 } from "../../platform/utf8.ts";
import { userKey } from "../../store/r2-keys.ts";
import type { WorkspaceScope } from "../keys.ts";
import { workspacePath } from "../limits.ts";
import type { Manifest } from "./manifest.ts";

/** What {@link Blobs.text} answers for a blob whose bytes are not UTF-8 text. */
export const NOT_TEXT = Symbol("not text");

/** The R2 key of a blob. */
export function blobKey(scope: WorkspaceScope, hash: string): string {
  return userKey(scope.agent, scope.owner, `blobs/${hash}`);
}

/** How many bytes of blob text a workspace object keeps in memory. */
const CACHE_BYTES = 4 * 1_048_576;

/**
 * The blobs of one workspace. A blob never changes once written, so the texts read or written
 * last stay in memory (least recently used out first, within {@link CACHE_BYTES}): the state
 * files every prompt reads cost no R2 read while the object lives.
 */
export class Blobs {
  readonly #bucket: R2Bucket;
  readonly #scope: WorkspaceScope;
  readonly #cache = new Map<string, string>();
  #cached = 0;

  constructor(bucket: R2Bucket, scope: WorkspaceScope) {
    this.#bucket = bucket;
    this.#scope = scope;
  }

  /** Stores `bytes` under their hash (`text`: the same content as text, kept in memory; null: not text). */
  async put(hash: string, bytes: Uint8Array, text: string | null): Promise<void> {
    await this.#bucket.put(blobKey(this.#scope, hash), bytes, {
      httpMetadata: {
        contentType: text === null ? "application/octet-stream" : "text/plain; charset=utf-8",
      },
      sha256: hash,
    });
    if (text !== null) this.#remember(hash, text, bytes.byteLength);
  }

  /**
   * The text of blob `hash`; {@link NOT_TEXT} when its bytes are not UTF-8, null when R2 has no
   * such object.
   */
  async text(hash: string): Promise<string | typeof NOT_TEXT | null> {
    const hit = this.#cache.get(hash);
    if (hit !== undefined) {
      this.#cache.delete(hash);
      this.#cache.set(hash, hit);
      return hit;
    }
    const object = await this.#bucket.get(blobKey(this.#scope, hash));
    if (object === null) return null;
    const text = decodeUtf8(new Uint8Array(await object.arrayBuffer()));
    if (text === null) return NOT_TEXT;
    this.#remember(hash, text, object.size);
    return text;
  }

  /** The bytes of blob `hash` as stored, or null when R2 has no such object. */
  async bytes(hash: string): Promise<Uint8Array | null> {
    const hit = this.#cache.get(hash);
    if (hit !== undefined) return new TextEncoder().encode(hit);
    const object = await this.#bucket.get(blobKey(this.#scope, hash));
    return object === null ? null : new Uint8Array(await object.arrayBuffer());
  }

  #remember(hash: string, text: string, bytes: number): void {
    if (bytes > CACHE_BYTES / 4 || this.#cache.has(hash)) return;
    this.#cache.set(hash, text);
    this.#cached += bytes;
    for (const [key, value] of this.#cache) {
      if (this.#cached <= CACHE_BYTES) break;
      this.#cache.delete(key);
      this.#cached -= new TextEncoder().encode(value).byteLength;
    }
  }
}

/**
 * The whole text of each of `paths` (null where there is no such file, or it is not text), read
 * in parallel.
 */
export async function readTexts(
  manifest: Pick<Manifest, "get">,
  blobs: Blobs,
  paths: string[],
): Promise<Record<string, string | null>> {
  const texts = await Promise.all(
    paths.map(async (path) => {
      const p = workspacePath(path);
      const row = p.ok ? manifest.get(p.value) : null;
      const text = row ? await blobs.text(row.hash) : null;
      return [path, typeof text === "string" ? text : null] as const;
    }),
  );
  return Object.fromEntries(texts);
}
