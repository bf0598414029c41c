/**
 * A remote Agent Card as compact JSON for the model (what `a2a_discover` answers): name,
 * description, version, url (the preferred interface's), interfaces, capabilities, skills (id,
 * name, description, tags, examples) and security (the schemes, and which of them a caller must
 * present). The card comes from another agent, so it is read as untrusted data in either shape the
 * SDK's card resolver hands back (its own objects, or the card's JSON as served): only own
 * properties, only values of the expected type, every string clipped and every list bounded, and
 * skills dropped from the end (counted in `skillsOmitted`) until the whole fits in
 * {@link CARD_JSON_MAX_CHARS} (past that, only its identity, marked `truncated`), so a hostile
 * card cannot flood the model's context. Pure: no I/O.
 */
import { clipLine } from "../platform/text.ts";

/** The most characters of the compact card (under the tool output cap, so it stays whole JSON). */
export const CARD_JSON_MAX_CHARS = 8_000;

const MAX = {
  description: 1_000,
  text: 200,
  interfaces: 10,
  extensions: 10,
  skills: 30,
  skillDescription: 300,
  tags: 10,
  examples: 3,
  schemes: 10,
  requirements: 10,
} as const;

type Json = Record<string, unknown>;

/** The card's compact JSON (see the module header). */
export function compactCardJson(card: unknown): string {
  const c = record(card) ?? {};
  const interfaces = list(own(c, "supportedInterfaces"), MAX.interfaces).flatMap((i) => {
    const url = text(own(i, "url"), MAX.text);
    if (!url) return [];
    return [
      pruned({
        url,
        protocolBinding: text(own(i, "protocolBinding"), 40),
        protocolVersion: text(own(i, "protocolVersion"), 20),
        tenant: text(own(i, "tenant"), 40),
      }),
    ];
  });
  const capabilities = record(own(c, "capabilities")) ?? {};
  const skills = list(own(c, "skills"), MAX.skills).map((s) =>
    pruned({
      id: text(own(s, "id"), 100),
      name: text(own(s, "name"), MAX.text),
      description: text(own(s, "description"), MAX.skillDescription),
      tags: strings(own(s, "tags"), MAX.tags, 50),
      examples: strings(own(s, "examples"), MAX.examples, MAX.text),
    }),
  );
  const compact: Json = pruned({
    name: text(own(c, "name"), MAX.text),
    description: text(own(c, "description"), MAX.description),
    version: text(own(c, "version"), 40),
    url: (interfaces[0]?.url as string | undefined) ?? text(own(c, "url"), MAX.text),
    interfaces,
    capabilities: pruned({
      streaming: own(capabilities, "streaming") === true,
      pushNotifications: own(capabilities, "pushNotifications") === true,
      extendedAgentCard:
        own(capabilities, "extendedAgentCard") === true ||
        own(c, "supportsAuthenticatedExtendedCard") === true,
      extensions: list(own(capabilities, "extensions"), MAX.extensions).flatMap((e) => {
        const uri = text(own(e, "uri"), MAX.text);
        return uri ? [uri] : [];
      }),
    }),
    skills,
    security: security(c),
  });
  let json = JSON.stringify(compact);
  let omitted = 0;
  while (json.length > CARD_JSON_MAX_CHARS && skills.length > 0) {
    skills.pop();
    omitted++;
    json = JSON.stringify({ ...compact, skills, skillsOmitted: omitted });
  }
  if (json.length <= CARD_JSON_MAX_CHARS) return json;
  // Still too long without skills (a card of long interfaces, extensions and schemes): the
  // identity and the first interface, marked as cut.
  const { name, description, version, url } = compact;
  return JSON.stringify({
    ...pruned({ name, description, version, url, interfaces: interfaces.slice(0, 1) }),
    truncated: "the card is too large to show whole",
  });
}

/**
 * The card's security: its schemes (type and the fields a caller needs) and the alternatives a
 * caller must meet (scheme -> scopes); null when it asks for none.
 */
function security(card: Json): Json | null {
  const schemes: Json = {};
  const declared = record(own(card, "securitySchemes")) ?? {};
  for (const [name, value] of Object.entries(declared).slice(0, MAX.schemes)) {
    const scheme = schemeOf(value);
    if (scheme) schemes[name.slice(0, 50)] = scheme;
  }
  // v1.0: securityRequirements [{schemes: {name: {list: [scopes]}}}]; v0.3: security [{name: []}].
  const v1 = list(own(card, "securityRequirements"), MAX.requirements).map((r) =>
    Object.fromEntries(
      Object.entries(record(own(r, "schemes")) ?? {})
        .slice(0, MAX.schemes)
        .map(([name, scopes]) => [name.slice(0, 50), strings(own(scopes, "list"), 10, 100)]),
    ),
  );
  const v03 = list(own(card, "security"), MAX.requirements).map((r) =>
    Object.fromEntries(
      Object.entries(r)
        .slice(0, MAX.schemes)
        .map(([name, scopes]) => [name.slice(0, 50), strings(scopes, 10, 100)]),
    ),
  );
  const required = v1.length > 0 ? v1 : v03;
  if (Object.keys(schemes).length === 0 && required.length === 0) return null;
  return { schemes, required };
}

const SCHEME_TYPES: Readonly<Record<string, string>> = {
  apiKeySecurityScheme: "apiKey",
  httpAuthSecurityScheme: "http",
  oauth2SecurityScheme: "oauth2",
  openIdConnectSecurityScheme: "openIdConnect",
  mtlsSecurityScheme: "mutualTLS",
};

/** One scheme, from the SDK's `{scheme: {$case, value}}`, v1.0 JSON's `{<case>: {...}}` or v0.3's `{type}`. */
function schemeOf(value: unknown): Json | null {
  const v = record(value);
  if (!v) return null;
  const oneOf = record(own(v, "scheme"));
  let type: string | undefined;
  let fields: Json | undefined;
  if (oneOf && typeof own(oneOf, "$case") === "string") {
    type = own(oneOf, "$case") as string;
    fields = record(own(oneOf, "value")) ?? {};
  } else if (typeof own(v, "type") === "string") {
    type = own(v, "type") as string;
    fields = v;
  } else {
    const key = Object.keys(v).find((k) => Object.hasOwn(SCHEME_TYPES, k));
    if (key) {
      type = key;
      fields = record(own(v, key)) ?? {};
    }
  }
  if (!type || !fields) return null;
  return pruned({
    type: Object.hasOwn(SCHEME_TYPES, type) ? SCHEME_TYPES[type] : type.slice(0, 40),
    scheme: text(own(fields, "scheme"), 40),
    bearerFormat: text(own(fields, "bearerFormat"), 40),
    in: text(own(fields, "location") ?? own(fields, "in"), 20),
    name: text(own(fields, "name"), 100),
    openIdConnectUrl: text(own(fields, "openIdConnectUrl"), MAX.text),
    oauth2MetadataUrl: text(own(fields, "oauth2MetadataUrl"), MAX.text),
  });
}

function record(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

/** An own property of an object (never one it inherits), else undefined. */
function own(value: unknown, key: string): unknown {
  const r = record(value);
  return r && Object.hasOwn(r, key) ? r[key] : undefined;
}

/** The objects among the first `max` items of an array. */
function list(value: unknown, max: number): Json[] {
  return Array.isArray(value)
    ? value.slice(0, max).flatMap((item) => {
        const r = record(item);
        return r ? [r] : [];
      })
    : [];
}

/** A non-empty string, whitespace collapsed, clipped to `max` characters; else undefined. */
function text(value: unknown, max: number): string | undefined {
  if (typeof value !== "string") return undefined;
  return clipLine(value, max) || undefined;
}

function strings(value: unknown, max: number, chars: number): string[] {
  return Array.isArray(value)
    ? value.slice(0, max).flatMap((item) => {
        const t = text(item, chars);
        return t ? [t] : [];
      })
    : [];
}

/** `fields` without undefined values and empty lists. */
function pruned(fields: Json): Json {
  return Object.fromEntries(
    Object.entries(fields).filter(
      ([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0),
    ),
  );
}
