/**
 * The @a2a-js/sdk client factory that the harness (remote agents), the CLI and the tests share:
 * the JSON-RPC and HTTP+JSON transports over one fetch, the SDK's v0.3 compatibility on or off,
 * and the card resolver. Imports only the SDK.
 */
import {
  ClientFactory,
  type ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";

/** How the factory's clients reach agents. */
export interface SdkClientOptions {
  /** Speak v0.3 to an agent whose card says so (the SDK's legacy compatibility). */
  legacyCompat: boolean;
  /** The fetch of the transports and the card resolver; the SDK's default when absent. */
  fetchImpl?: typeof fetch;
  /** The card resolver's own fetch (e.g. one that sends no A2A-Version header); `fetchImpl` when absent. */
  cardFetch?: typeof fetch;
  /** Transports to prefer over the card's order. */
  preferredTransports?: ClientFactoryOptions["preferredTransports"];
}

/** A client factory with both transports and a card resolver. */
export function sdkClientFactory(options: SdkClientOptions): ClientFactory {
  const legacyCompat = { enabled: options.legacyCompat };
  const fetchImpl = options.fetchImpl ? { fetchImpl: options.fetchImpl } : {};
  const cardFetch = options.cardFetch ? { fetchImpl: options.cardFetch } : fetchImpl;
  return new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat, ...fetchImpl }),
      new RestTransportFactory({ legacyCompat, ...fetchImpl }),
    ],
    ...(options.preferredTransports ? { preferredTransports: options.preferredTransports } : {}),
    cardResolver: new DefaultAgentCardResolver({ legacyCompat, ...cardFetch }),
  });
}
