/**
 * What the deployed bundle has in place of the scripted model (scripts/bundle-worker.ts maps
 * src/model/client.ts's import of `./scripted/messages-api.ts` here; `npm run dev` and the tests
 * keep it): a local stand-in for the Messages API, for dev and tests only, which a deploy refuses
 * to turn on (`SCRIPTED_MODEL`, scripts/deploy-config.ts). The name is the real module's, so the
 * import still resolves; if a deployed Worker reached it anyway, this says why it is missing.
 */
export function createScriptedMessagesApi(): never {
  throw new Error(
    'the scripted model is not in the deployed Worker (npm run dev and tests only): set the ANTHROPIC_API_KEY secret and SCRIPTED_MODEL = "off"',
  );
}
