import type { Command } from 'commander';
import { inputReference } from '../client/inputs.ts';
import { decimal, integer, withOperationOptions, type OperationOptions } from '../client/options.ts';
import { runOperation } from '../client/run-operation.ts';

interface AnimateOptions extends OperationOptions {
  temperature?: number;
  maxOutputTokens?: number;
}

export function registerAnimate(program: Command): void {
  withOperationOptions(
    program
      .command('animate')
      .description('Animate an SVG (POST /v1/svgs/animations) and write the animated SVG to a file.')
      .argument('<svg>', 'a local SVG file (sent as base64) or an http(s) URL (fetched by the server)')
      .argument('[prompt]', 'what to animate (default: the model chooses)'),
  )
    .option('--temperature <t>', 'sampling temperature (0 to 2)', decimal)
    .option('--max-output-tokens <n>', 'cap on output tokens', integer)
    .action(async (svg: string, prompt: string | undefined, options: AnimateOptions) => {
      await runOperation(
        {
          name: 'animate',
          path: '/v1/svgs/animations',
          operation: 'svg_animate',
          expected: 1,
          body: {
            svg_source: await inputReference(svg),
            prompt,
            temperature: options.temperature,
            max_output_tokens: options.maxOutputTokens,
            reasoning_effort: options.reasoningEffort,
          },
        },
        options,
      );
    });
}
