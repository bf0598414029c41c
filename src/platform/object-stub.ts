/**
 * Durable Object stubs by name. Every object of the harness is named by what it holds (a task by
 * its id, a conversation by its context key, a workspace by agent and owner, a user's counters by
 * their key), never by a random id, so any Worker reaches the same object; this is the one place
 * that turns a name into a stub. The namespace's own type (the generated `Env`) types the stub.
 */

/** The stub of the object named `name` in namespace `ns`. */
export function stubByName<T extends Rpc.DurableObjectBranded | undefined>(
  ns: DurableObjectNamespace<T>,
  name: string,
): DurableObjectStub<T> {
  return ns.get(ns.idFromName(name));
}
