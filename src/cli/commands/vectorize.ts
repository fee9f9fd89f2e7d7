import type { Command } from 'commander';
import { inputReference } from '../client/inputs.ts';
import { decimal, integer, viewBox, withOperationOptions, type OperationOptions } from '../client/options.ts';
import { runOperation } from '../client/run-operation.ts';

interface VectorizeOptions extends OperationOptions {
  autoCrop?: boolean;
  targetSize?: number;
  temperature?: number;
  maxOutputTokens?: number;
  viewBox?: ReturnType<typeof viewBox>;
}

export function registerVectorize(program: Command): void {
  withOperationOptions(
    program
      .command('vectorize')
      .description('Convert a raster image (or SVG) into an SVG (POST /v1/svgs/vectorizations) and write it to a file.')
      .argument('<image>', 'a local image file (sent as base64) or an http(s) URL (fetched by the server)'),
  )
    .option('--auto-crop', 'crop to the dominant subject first')
    .option('--target-size <px>', 'square resize target in pixels (128 to 4096)', integer)
    .option('--temperature <t>', 'sampling temperature (0 to 2)', decimal)
    .option('--max-output-tokens <n>', 'cap on output tokens', integer)
    .option('--view-box <"minX minY width height">', 'the viewBox of the returned SVG', viewBox)
    .action(async (image: string, options: VectorizeOptions) => {
      await runOperation(
        {
          name: 'vectorize',
          path: '/v1/svgs/vectorizations',
          operation: 'svg_vectorize',
          expected: 1,
          body: {
            image: await inputReference(image),
            auto_crop: options.autoCrop,
            target_size: options.targetSize,
            temperature: options.temperature,
            max_output_tokens: options.maxOutputTokens,
            reasoning_effort: options.reasoningEffort,
            attributes: options.viewBox ? { viewBox: options.viewBox } : undefined,
          },
        },
        options,
      );
    });
}
