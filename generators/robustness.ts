/**
 * The robustness catalogue as data: the inputs real services break on that no random generator of this suite sends.
 * Keys named after prototype properties, JSON at its edges (prototype-named and case-variant members, duplicates, a
 * byte order mark, bytes that are not UTF-8, deep nesting, a very long name, megabytes), other media types and Accept
 * values, path variants a router may normalise, petIds a lenient parser may read, an undocumented method, and the order
 * of 400 and 401. Each is sent once in the robustness suite's coverage phase (runner/scenarios/robustness.ts), whatever
 * the seed; the counts here are its budget (runner/budget.ts).
 */
import { type CaseFamily, caseRef, type CaseRef } from './case.js';
import { newPetBody } from './new-pet.js';
import type { OperationId } from '../spec/contract.js';

/** Tokens a key table kept in a plain JavaScript object "finds" (keys[token] is inherited, not undefined). */
export const PROTOTYPE_KEYS: readonly string[] = Object.freeze([
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
]);

/**
 * The one sent on every operation, the most common crash on Node stacks; the others (inherited functions and the
 * prototype object itself) go on the first operation only, so that the coverage phases fit a Free key's default budget
 * with room for a random case.
 */
export const PROTOTYPE_KEYS_EVERYWHERE: readonly string[] = Object.freeze(['constructor']);

/** Nesting depth of the deep bodies: a few thousand levels, beyond what a recursive parser's stack survives. */
export const DEEP_LEVELS = 3000;
/** Length of the very long name, in characters (a few hundred KB). */
export const LONG_NAME_CHARS = 300 * 1024;
/** Size of the large body, in bytes (a few MB). */
export const LARGE_BODY_BYTES = 3 * 1024 * 1024;

/** What a target that accepts a body may have read from it: the fields of the pet it must then show. */
export interface Reading {
  readonly name: string;
  /** Exact digits. */
  readonly categoryId: string;
}

/**
 * One createPet body of the catalogue. `refuse`: the spec requires a 400 (a required field is missing), and the
 * marker names the pet a wrong acceptance would leave behind. `either`: the spec leaves it open (an unknown member,
 * another media type, the JSON edges RFC 8259 leaves to implementations); a pet accepted must come back as one of
 * `readings` (null: no reading is certain, the answer is only recorded).
 */
export interface BodyCase {
  readonly name: string;
  /** The family of input it belongs to (generators/case.ts): what one cause in a target answers alike. */
  readonly family: CaseFamily;
  /** The Pet field it is about, when it is about one. */
  readonly field?: string;
  readonly topic: 'json' | 'media-type';
  readonly verdict: 'refuse' | 'either';
  readonly body: string | Uint8Array;
  /** Content-Type sent; '' sends none. */
  readonly contentType: string;
  /** A query string sent with it ('?name=…'): parameters in another place than the body. */
  readonly query?: string;
  /** For `refuse`: why (create-invalid-rejected's reason); for `either`: what the case is. */
  readonly reason: string;
  readonly marker: string | null;
  readonly readings: readonly Reading[] | null;
}

const CATEGORY = '5';

/** Nested arrays and objects in turn, `levels` deep, around `inner`: [{"a":[{"a":…}]}]. */
export function deeplyNested(levels: number, inner = '0'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    if (i % 2 === 0) {
      open += '[';
      close = `]${close}`;
    } else {
      open += '{"a":';
      close = `}${close}`;
    }
  }
  return open + inner + close;
}

const json = (v: string) => JSON.stringify(v);

/**
 * The operation the catalogue's bodies are sent to (bodyCases, and the malformed body without a key): the checks that
 * judge only them judge no other operation (the table of evidence reads it).
 */
export const BODY_OPERATION = 'createPet' satisfies OperationId;

/** The operation QUERY_SHAPES's queries are sent to. */
export const QUERY_SHAPE_OPERATION = 'listPets' satisfies OperationId;

/** How many marker names bodyCases asks `mark` for (runner/scenarios/robustness.ts samples this many). */
export const BODY_MARKERS = 19;

/** A valid NewPet of this name in CATEGORY, as newPetBody writes it. */
const petBody = (name: string): string => newPetBody({ name, categoryId: CATEGORY, nameEdge: false });

/**
 * The catalogue's createPet bodies. `mark(i)` gives the i-th marker name (unique to the run: a pet a target wrongly
 * keeps is found by it); ordinary names are marked too, so that what the run creates carries its prefix.
 */
export function bodyCases(mark: (i: number) => string): BodyCase[] {
  const m = Array.from({ length: BODY_MARKERS }, (_, i) => mark(i));
  const ok = (i: number): Reading[] => [{ name: m[i]!, categoryId: CATEGORY }];
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(petBody(m[12]!), 'utf16le')]);
  const boundary = 'psc-robustness-boundary';
  const multipart =
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${m[11]}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="categoryId"\r\n\r\n${CATEGORY}\r\n--${boundary}--\r\n`;
  const longName = m[8]! + 'x'.repeat(LONG_NAME_CHARS);
  const largePad = 'x'.repeat(LARGE_BODY_BYTES);
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(petBody(m[5]!))]);
  const badUtf8 = Buffer.concat([
    Buffer.from(`{"name":"${m[6]}`),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
    Buffer.from(`","categoryId":${CATEGORY}}`),
  ]);
  const jsonCase = (c: Omit<BodyCase, 'topic' | 'contentType'>): BodyCase => ({
    ...c,
    topic: 'json',
    contentType: 'application/json',
  });
  return [
    jsonCase({
      name: '__proto__ member holding categoryId',
      family: 'body-required-missing',
      field: 'categoryId',
      verdict: 'refuse',
      body: `{"name":${json(m[0]!)},"__proto__":{"categoryId":${CATEGORY}}}`,
      reason: 'missing categoryId (given only inside a __proto__ member)',
      marker: m[0]!,
      readings: null,
    }),
    jsonCase({
      name: 'constructor and prototype members',
      family: 'body-json-edge',
      verdict: 'either',
      body: `{"name":${json(m[1]!)},"categoryId":${CATEGORY},"constructor":{"prototype":{"status":"sold"}},"prototype":{"isAdmin":true}}`,
      reason: 'a valid NewPet with constructor and prototype members',
      marker: null,
      readings: ok(1),
    }),
    jsonCase({
      name: 'member categoryid (case variant)',
      family: 'body-required-missing',
      field: 'categoryId',
      verdict: 'refuse',
      body: `{"name":${json(m[2]!)},"categoryid":${CATEGORY}}`,
      reason: 'missing categoryId (given only as categoryid)',
      marker: m[2]!,
      readings: null,
    }),
    jsonCase({
      name: 'member Name (case variant)',
      family: 'body-required-missing',
      field: 'name',
      verdict: 'refuse',
      body: `{"Name":${json(m[3]!)},"categoryId":${CATEGORY}}`,
      reason: 'missing name (given only as Name)',
      marker: m[3]!,
      readings: null,
    }),
    jsonCase({
      name: 'duplicate member categoryId',
      // A strict parser refuses a repeated name (RFC 8259: names SHOULD be unique): to it, an unreadable body.
      family: 'body-unreadable',
      field: 'categoryId',
      verdict: 'either',
      body: `{"name":${json(m[4]!)},"categoryId":${CATEGORY},"categoryId":6}`,
      reason: 'a NewPet whose categoryId member is repeated with another value',
      marker: null,
      readings: [...ok(4), { name: m[4]!, categoryId: '6' }],
    }),
    jsonCase({
      name: 'UTF-8 byte order mark',
      family: 'body-unreadable',
      verdict: 'either',
      body: bom,
      reason: 'a valid NewPet after a UTF-8 byte order mark',
      marker: null,
      readings: ok(5),
    }),
    jsonCase({
      name: 'bytes that are not UTF-8 in name',
      family: 'body-unreadable',
      field: 'name',
      verdict: 'either',
      body: badUtf8,
      reason: 'a NewPet whose name holds bytes that are not UTF-8',
      marker: null,
      readings: null,
    }),
    jsonCase({
      name: `nesting ${DEEP_LEVELS} deep in an unknown member`,
      family: 'body-unreadable',
      verdict: 'either',
      body: `{"name":${json(m[7]!)},"categoryId":${CATEGORY},"extra":${deeplyNested(DEEP_LEVELS)}}`,
      reason: `a valid NewPet with arrays and objects nested ${DEEP_LEVELS} deep in an unknown member`,
      marker: null,
      readings: ok(7),
    }),
    jsonCase({
      name: `nesting ${DEEP_LEVELS} deep as the whole body`,
      family: 'body-unreadable',
      verdict: 'refuse',
      body: deeplyNested(DEEP_LEVELS),
      reason: `not an object: arrays and objects nested ${DEEP_LEVELS} deep`,
      marker: null,
      readings: null,
    }),
    jsonCase({
      name: `a name of ${LONG_NAME_CHARS / 1024} KB`,
      family: 'body-oversized',
      field: 'name',
      verdict: 'either',
      body: petBody(longName),
      reason: `a valid NewPet whose name is ${LONG_NAME_CHARS / 1024} KB long`,
      marker: null,
      readings: [{ name: longName, categoryId: CATEGORY }],
    }),
    jsonCase({
      name: `a body of ${LARGE_BODY_BYTES / 1024 / 1024} MB`,
      family: 'body-oversized',
      verdict: 'either',
      body: `{"name":${json(m[9]!)},"categoryId":${CATEGORY},"padding":"${largePad}"}`,
      reason: `a valid NewPet padded to ${LARGE_BODY_BYTES / 1024 / 1024} MB by an unknown member`,
      marker: null,
      readings: ok(9),
    }),
    // Parameters in another place or shape than the body's members (frameworks merge the query string into the
    // request's parameters, or read a body wrapped in a member named after the resource): the body itself lacks the
    // required fields, so the spec requires a 400.
    jsonCase({
      name: 'fields in the query string, {} as the body',
      family: 'body-required-missing',
      verdict: 'refuse',
      body: '{}',
      query: `?name=${encodeURIComponent(m[16]!)}&categoryId=${CATEGORY}`,
      reason: 'missing name and categoryId (given only in the query string)',
      marker: m[16]!,
      readings: null,
    }),
    jsonCase({
      name: 'fields wrapped in a "pet" member',
      family: 'body-required-missing',
      verdict: 'refuse',
      body: `{"pet":${petBody(m[17]!)}}`,
      reason: 'missing name and categoryId (given only inside a "pet" member)',
      marker: m[17]!,
      readings: null,
    }),
    // An integer written with a zero fraction is an integer under JSON Schema: accepting it (as 5) is right, refusing
    // it is recorded.
    jsonCase({
      name: `categoryId with a zero fraction (${CATEGORY}.0)`,
      family: 'body-json-edge',
      field: 'categoryId',
      verdict: 'either',
      body: `{"name":${json(m[18]!)},"categoryId":${CATEGORY}.0}`,
      reason: `a NewPet whose categoryId is written ${CATEGORY}.0 (an integer under JSON Schema)`,
      marker: null,
      readings: ok(18),
    }),
    {
      name: 'no Content-Type',
      family: 'body-unreadable',
      topic: 'media-type',
      verdict: 'either',
      body: `{"name":${json(m[10]!)},"categoryId":${CATEGORY}}`,
      contentType: '',
      reason: 'a JSON NewPet sent with no Content-Type',
      marker: null,
      readings: ok(10),
    },
    {
      name: 'Content-Type text/plain',
      family: 'body-unreadable',
      topic: 'media-type',
      verdict: 'either',
      body: `{"name":${json(m[13]!)},"categoryId":${CATEGORY}}`,
      contentType: 'text/plain',
      reason: 'a JSON NewPet sent as text/plain',
      marker: null,
      readings: ok(13),
    },
    {
      name: 'form-encoded',
      family: 'body-unreadable',
      topic: 'media-type',
      verdict: 'either',
      body: `name=${encodeURIComponent(m[14]!)}&categoryId=${CATEGORY}`,
      contentType: 'application/x-www-form-urlencoded',
      reason: 'a NewPet form-encoded (valid fields)',
      marker: null,
      readings: ok(14),
    },
    {
      name: 'form-encoded without categoryId',
      family: 'body-unreadable',
      field: 'categoryId',
      topic: 'media-type',
      verdict: 'refuse',
      body: `name=${encodeURIComponent(m[15]!)}`,
      contentType: 'application/x-www-form-urlencoded',
      reason: 'missing categoryId (a form-encoded body with name only)',
      marker: m[15]!,
      readings: null,
    },
    {
      name: 'multipart/form-data',
      family: 'body-unreadable',
      topic: 'media-type',
      verdict: 'either',
      body: multipart,
      contentType: `multipart/form-data; boundary=${boundary}`,
      reason: 'a NewPet as multipart/form-data (valid fields)',
      marker: null,
      readings: ok(11),
    },
    {
      name: 'charset=utf-16',
      family: 'body-unreadable',
      topic: 'media-type',
      verdict: 'either',
      body: utf16,
      contentType: 'application/json; charset=utf-16',
      reason: 'a JSON NewPet in UTF-16 (with its byte order mark), labelled charset=utf-16',
      marker: null,
      readings: ok(12),
    },
  ];
}

/**
 * Accept values a JSON service cannot serve, each on every operation: text/html without a key and with it (a server
 * may answer a browser with an HTML page), application/xml with it. `name` is the case class.
 */
export const ACCEPT_CASES: readonly {
  readonly name: string;
  readonly family: CaseFamily;
  readonly accept: string;
  readonly keyed: boolean;
}[] = Object.freeze([
  { name: 'Accept text/html', family: 'accept-variant', accept: 'text/html', keyed: false },
  { name: 'Accept text/html with the key', family: 'accept-variant', accept: 'text/html', keyed: true },
  { name: 'Accept application/xml', family: 'accept-variant', accept: 'application/xml', keyed: true },
]);

/** A path variant: the request-target sent as is, from the base address's path (e.g. '/v1'). */
export interface PathVariant {
  readonly name: string;
  readonly family: CaseFamily;
  /** The documented operation a router that normalises the variant would serve. */
  readonly resembles: 'listPets' | 'getPet';
  /** The request-target, from the origin. */
  readonly target: (basePath: string) => string;
  /** Also sent with the key, to record how the target reads it (a trailing slash). */
  readonly alsoKeyed?: true;
}

/** Paths a router may normalise into a documented one; each sent as GET without a key (and with, when alsoKeyed). */
export const PATH_VARIANTS: readonly PathVariant[] = Object.freeze([
  {
    name: 'upper-case path',
    family: 'path-variant',
    resembles: 'listPets',
    target: (b: string) => `${b.replace(/v1$/, 'V1')}/PETS`,
  },
  // The version segment alone in another case: a prefix mounted case-insensitively (Express's default).
  {
    name: 'upper-case version segment',
    family: 'path-variant',
    resembles: 'listPets',
    target: (b: string) => `${b.replace(/v1$/, 'V1')}/pets`,
  },
  { name: 'doubled slash', family: 'path-normalised', resembles: 'listPets', target: (b: string) => `${b}//pets` },
  { name: 'dot segment', family: 'path-normalised', resembles: 'listPets', target: (b: string) => `${b}/./pets` },
  {
    name: 'trailing slash',
    family: 'path-normalised',
    resembles: 'listPets',
    target: (b: string) => `${b}/pets/`,
    alsoKeyed: true,
  },
  // Pet 1, whoever's it is: the request carries no key, and only a router that decodes %2F before matching reaches it.
  { name: 'encoded slash', family: 'path-normalised', resembles: 'getPet', target: (b: string) => `${b}/pets%2F1` },
  {
    name: 'encoded dot segment',
    family: 'path-normalised',
    resembles: 'listPets',
    target: (b: string) => `${b}/%2e/pets`,
  },
]);

/**
 * listPets queries whose parameters come in another shape than name=value once: arrays in brackets, as qs-style
 * parsers read them (the query as sent). The spec shows no answer; a 5xx is a violation, the rest is recorded.
 */
export const QUERY_SHAPES: readonly { readonly name: string; readonly family: CaseFamily; readonly query: string }[] =
  Object.freeze([
    {
      name: 'limit and status in brackets (limit[]=5&status[]=available)',
      family: 'query-shape',
      query: '?limit[]=5&status[]=available',
    },
  ]);

/** petId segments (percent-encoded) a lenient integer parser may read as an id. */
export const PET_ID_VARIANTS: readonly {
  readonly name: string;
  readonly family: CaseFamily;
  readonly segment: string;
}[] = Object.freeze([
  { name: 'a petId of 3000 digits', family: 'petId-not-int64', segment: '9'.repeat(3000) },
  { name: 'a petId in Arabic-Indic digits', family: 'petId-not-int64', segment: encodeURIComponent('\u0661') },
  { name: 'a petId with a sign', family: 'petId-not-int64', segment: encodeURIComponent('+1') },
  { name: 'a petId with whitespace', family: 'petId-not-int64', segment: encodeURIComponent(' 1') },
]);

/** A malformed body sent without a key: which does the target judge first, the key (401) or the body (400)? */
export const MALFORMED_BODY = '{"name":';

/** The catalogue's one undocumented method (DELETE on a pet, without a key). */
export const UNDOCUMENTED_METHOD = { name: 'undocumented method', family: 'method-undocumented' } as const;

/** The order of 400 and 401: MALFORMED_BODY sent without a key. */
export const MALFORMED_WITHOUT_KEY = { name: 'malformed body without a key', family: 'auth-order' } as const;

/**
 * A catalogue entry as the case its findings carry: printed `robustness: <name>` (a petId variant `petId <name>`, as
 * the getPet suite prints its ids), its variant the entry's name.
 */
export function robustnessCase(entry: {
  readonly name: string;
  readonly family: CaseFamily;
  readonly field?: string;
}): CaseRef {
  const printed = entry.family === 'petId-not-int64' ? `petId ${entry.name}` : `robustness: ${entry.name}`;
  return caseRef(printed, entry.family, entry.name, entry.field);
}
