/**
 * Values built on first use. Every isolate evaluates the whole bundle's top level before its
 * first request, so what a module builds at load (a zod schema, above all) is paid by every cold
 * start; built through {@link lazy}, it is paid by the first call that needs it, once per isolate.
 * Pure: no I/O.
 */

/** A function that builds the value on its first call and returns that same value on every call. */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
