/**
 * Who a delegation token says is calling (auth/delegated.ts reads it, remote/delegation.ts passes
 * it on): a user, via an agent, from an issuer, with the chain of actors before it. Types only,
 * with no Workers types, so the CLI and scripts can import what imports it.
 */

/** An actor of a delegation chain (RFC 8693 `act`): the agent, its deployment, who came before. */
export interface ChainActor {
  sub: string;
  iss?: string;
  act?: ChainActor;
}

/** Who a delegation token says calls: a user, via an agent, from an issuer, and the chain. */
export interface DelegatedCaller {
  issuer: string;
  user: string;
  /** The calling agent (the token's outermost actor). */
  agent: string;
  /** The whole actor claim, prior actors nested. */
  actor: ChainActor;
  /** The calling task's opaque correlation id. */
  correlationId: string;
  scope: string;
}
