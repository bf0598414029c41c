/**
 * Whole R2 prefixes: every object under one (listed page by page), and deleting them all (a
 * task's erasure, a user's privacy erasure).
 */

/** Every object whose key starts with `prefix`. */
export async function listPrefix(bucket: R2Bucket, prefix: string): Promise<R2Object[]> {
  const out: R2Object[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: 1000 });
    out.push(...page.objects);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/** Deletes every object whose key starts with `prefix` (1,000 keys per call). */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  const objects = await listPrefix(bucket, prefix);
  for (let i = 0; i < objects.length; i += 1000)
    await bucket.delete(objects.slice(i, i + 1000).map((o) => o.key));
}
