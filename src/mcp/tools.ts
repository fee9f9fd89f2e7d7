import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { ImageInput } from '../contract/common.ts';
import { ENDPOINTS } from '../contract/endpoints.ts';
import { AnimationRequest, EditRequest, GenerationRequest, VectorizationRequest } from '../contract/svgs.ts';

/** Where the tools run: `stdio` (a local agent's own process, with files) or `http` (`/mcp` on the service). */
export type McpTransport = 'stdio' | 'http';

/** A tool: its name, what the agent reads of it, its arguments' JSON Schema, and the API call it makes. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** An operation (POST, streamed) or a read (GET). */
  call: { kind: 'operation'; path: string } | { kind: 'read'; path: string };
  /** Reads nothing and changes nothing but the balance: MCP's annotations. */
  readOnly: boolean;
}

const OutputPath = Type.String({
  minLength: 1,
  description: 'Also write the SVG to this file (stdio only; relative to the MCP server\'s working directory). With n > 1, the second is written as NAME-2.svg, and so on.',
});
/** A local file, for a tool run over stdio: read by the MCP server, sent as base64. */
const FilePath = Type.Object({ path: Type.String({ minLength: 1, description: 'A local image file (PNG, JPEG, WebP, GIF or SVG), read by the MCP server.' }) }, { additionalProperties: false });

/**
 * A request schema of the HTTP API as a tool's arguments: the same fields, bounds and
 * descriptions (so the two cannot drift), without `stream` (tools always stream, to report
 * progress), with `output_path` over stdio.
 */
function argumentsOf(request: TObject, transport: McpTransport, replace: Record<string, TSchema> = {}): Record<string, unknown> {
  const { stream: _stream, ...properties } = request.properties;
  const schema = Type.Object(
    { ...properties, ...replace, ...(transport === 'stdio' ? { output_path: Type.Optional(OutputPath) } : {}) },
    { additionalProperties: false, ...(request.description ? { description: request.description } : {}) },
  );
  // A plain JSON Schema: TypeBox's own markers (symbols) are not JSON and do not travel.
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false };

/** The tools, as each transport offers them. */
export function toolSpecs(transport: McpTransport): ToolSpec[] {
  const image: Record<string, TSchema> =
    transport === 'stdio' ? { image: Type.Union([...ImageInput.anyOf, FilePath], { description: 'The image: a URL, base64, or (stdio) a local file path.' }) } : {};
  const result = 'Returns the SVG as text, a PNG preview, the credits charged and the request id.';
  return [
    {
      name: 'generate_svg',
      title: 'Generate an SVG',
      description: `Draws a new SVG from a text prompt with a model of the catalog (list_models). ${result}`,
      inputSchema: argumentsOf(GenerationRequest, transport),
      call: { kind: 'operation', path: ENDPOINTS.createGeneration.path },
      readOnly: false,
    },
    {
      name: 'vectorize_image',
      title: 'Vectorize an image',
      description: `Traces a raster image (or normalizes an SVG) into an SVG. ${result}`,
      inputSchema: argumentsOf(VectorizationRequest, transport, image),
      call: { kind: 'operation', path: ENDPOINTS.createVectorization.path },
      readOnly: false,
    },
    {
      name: 'edit_svg',
      title: 'Edit an SVG',
      description: `Changes an SVG as an instruction says (inline markup in svg, or svg_source by URL or base64). ${result}`,
      inputSchema: argumentsOf(EditRequest, transport),
      call: { kind: 'operation', path: ENDPOINTS.createEdit.path },
      readOnly: false,
    },
    {
      name: 'animate_svg',
      title: 'Animate an SVG',
      description: `Animates an SVG (svg_source by URL or base64), as the prompt says or as the model chooses. ${result}`,
      inputSchema: argumentsOf(AnimationRequest, transport),
      call: { kind: 'operation', path: ENDPOINTS.createAnimation.path },
      readOnly: false,
    },
    {
      name: 'list_models',
      title: 'List models',
      description: 'The models this key may use, with their operations, input limits and prices.',
      inputSchema: NO_ARGUMENTS,
      call: { kind: 'read', path: ENDPOINTS.listModels.path },
      readOnly: true,
    },
    {
      name: 'get_balance',
      title: 'Get the balance',
      description: "The organization's available credits. Organization admin keys only.",
      inputSchema: NO_ARGUMENTS,
      call: { kind: 'read', path: ENDPOINTS.getOrganizationBalance.path },
      readOnly: true,
    },
  ];
}
