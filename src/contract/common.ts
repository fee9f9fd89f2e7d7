import { Type, type Static } from '@sinclair/typebox';
import { IMAGE_BASE64_MAX_LENGTH, IMAGE_MAX_BYTES, IMAGE_MAX_PIXELS, IMAGE_MAX_SIDE, SVG_BASE64_MAX_LENGTH } from './media-size.ts';
import { Nullable, StringEnum, TOO_LARGE } from './schema-helpers.ts';

// Request fields shared by several operations, each written once.

export const REASONING_EFFORTS = ['low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export const ModelField = Type.String({ minLength: 1, description: 'Model identifier from the catalog.' });
export const Stream = Type.Boolean({ default: false, description: 'Answer with Server-Sent Events instead of JSON.' });
export const Temperature = Type.Number({ minimum: 0, maximum: 2, default: 1 });
export const TopP = Type.Number({ minimum: 0, maximum: 1, default: 1 });
export const PresencePenalty = Nullable(Type.Number({ minimum: -2, maximum: 2 }), { default: 0 });
/** The most output tokens a request may ask for. */
export const MAX_OUTPUT_TOKENS = 65_536;
export const MaxOutputTokens = Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS });
export const ReasoningEffortField = StringEnum(REASONING_EFFORTS, {
  description: 'Quality and speed trade-off; the model default applies when omitted.',
});

export const ViewBox = Type.Object(
  {
    minX: Type.Number(),
    minY: Type.Number(),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({ exclusiveMinimum: 0 }),
  },
  { additionalProperties: false, title: 'ViewBox' },
);
export type ViewBox = Static<typeof ViewBox>;

export const SvgAttributes = Nullable(
  Type.Object({ viewBox: Type.Optional(Nullable(ViewBox)) }, { additionalProperties: false }),
  { description: 'Optional output attributes. `viewBox` sets the root viewBox of every returned SVG.' },
);
export type SvgAttributes = Static<typeof SvgAttributes>;

/** Longest URL accepted in an input reference; longer is refused before any fetch. */
export const URL_MAX_LENGTH = 8192;

export const HttpUrl = Type.String({
  format: 'uri',
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  maxLength: URL_MAX_LENGTH,
  'x-inkwell-expected': 'an http or https URL',
});

const UrlReference = Type.Object({ url: HttpUrl }, { additionalProperties: false, title: 'UrlInput' });

function base64Reference(maxLength: number, title: string) {
  return Type.Object(
    {
      base64: Type.String({
        minLength: 1,
        maxLength,
        ...TOO_LARGE,
        description: 'Base64 of the file, optionally as a data: URL.',
      }),
    },
    { additionalProperties: false, title },
  );
}

export const ImageInput = Type.Union([UrlReference, base64Reference(IMAGE_BASE64_MAX_LENGTH, 'ImageBase64Input')], {
  title: 'ImageInput',
  'x-inkwell-expected': "an object with exactly one of 'url' or 'base64'",
  description:
    `An image by http(s) URL or base64: png, jpeg, webp, gif or svg; decoded at most ${IMAGE_MAX_BYTES} bytes, ` +
    `${IMAGE_MAX_SIDE}x${IMAGE_MAX_SIDE} and ${IMAGE_MAX_PIXELS} pixels.`,
});
export type ImageInput = Static<typeof ImageInput>;

export const SvgInput = Type.Union([UrlReference, base64Reference(SVG_BASE64_MAX_LENGTH, 'SvgBase64Input')], {
  title: 'SvgInput',
  'x-inkwell-expected': "an object with exactly one of 'url' or 'base64'",
  description: 'An SVG document by http(s) URL or base64.',
});
export type SvgInput = Static<typeof SvgInput>;

/** Generation references also accept a bare URL string as shorthand for `{url}`. */
export const ReferenceItem = Type.Union([...ImageInput.anyOf, HttpUrl], {
  'x-inkwell-expected': "an object with exactly one of 'url' or 'base64', or an http or https URL string",
});
export type ReferenceItem = Static<typeof ReferenceItem>;
