import type { Command } from 'commander';
import { inputReference } from '../client/inputs.ts';
import { collect, decimal, integer, withOperationOptions, type OperationOptions } from '../client/options.ts';
import { runOperation } from '../client/run-operation.ts';

interface EditOptions extends OperationOptions {
  reference?: string[];
  maxReviewSteps?: number;
  temperature?: number;
  maxOutputTokens?: number;
}

export function registerEdit(program: Command): void {
  withOperationOptions(
    program
      .command('edit')
      .description('Edit an SVG by an instruction (POST /v1/svgs/edits) and write the result to a file.')
      .argument('<svg>', 'a local SVG file (sent as base64) or an http(s) URL (fetched by the server)')
      .argument('<instruction>', 'the edit to make'),
  )
    .option('--reference <file|url>', 'a reference image (repeat for several)', collect)
    .option('--max-review-steps <n>', 'review and redo steps after the first edit (0 to 5)', integer)
    .option('--temperature <t>', 'sampling temperature (0 to 2)', decimal)
    .option('--max-output-tokens <n>', 'cap on the output tokens of the final edit', integer)
    .action(async (svg: string, instruction: string, options: EditOptions) => {
      const references = options.reference ? await Promise.all(options.reference.map(inputReference)) : undefined;
      const settings = { max_output_tokens: options.maxOutputTokens, temperature: options.temperature };
      await runOperation(
        {
          name: 'edit',
          path: '/v1/svgs/edits',
          operation: 'svg_edit',
          expected: 1,
          body: {
            prompt: instruction,
            // By reference, not inline `svg`: the base64 field takes larger documents.
            svg_source: await inputReference(svg),
            reference_images: references,
            max_review_steps: options.maxReviewSteps,
            reasoning_effort: options.reasoningEffort,
            settings: Object.values(settings).some((v) => v !== undefined) ? settings : undefined,
          },
        },
        options,
      );
    });
}
