import type { Command } from 'commander';
import { inputReference } from '../client/inputs.ts';
import { collect, decimal, integer, viewBox, withOperationOptions, type OperationOptions } from '../client/options.ts';
import { runOperation } from '../client/run-operation.ts';

interface GenerateOptions extends OperationOptions {
  count?: number;
  instructions?: string;
  reference?: string[];
  temperature?: number;
  topP?: number;
  presencePenalty?: number;
  maxOutputTokens?: number;
  viewBox?: ReturnType<typeof viewBox>;
}

export function registerGenerate(program: Command): void {
  withOperationOptions(
    program
      .command('generate')
      .description('Generate SVGs from a text prompt (POST /v1/svgs/generations) and write them to files.')
      .argument('<prompt>', 'what to draw'),
  )
    .option('-n, --count <n>', 'how many SVGs to generate (1 to 16)', integer)
    .option('--instructions <text>', 'style or formatting guidance, apart from the prompt')
    .option('--reference <file|url>', 'a reference image (repeat for several)', collect)
    .option('--temperature <t>', 'sampling temperature (0 to 2)', decimal)
    .option('--top-p <p>', 'nucleus sampling (0 to 1)', decimal)
    .option('--presence-penalty <p>', 'presence penalty (-2 to 2)', decimal)
    .option('--max-output-tokens <n>', 'cap on output tokens per SVG', integer)
    .option('--view-box <"minX minY width height">', 'the viewBox of every returned SVG', viewBox)
    .action(async (prompt: string, options: GenerateOptions) => {
      const references = options.reference ? await Promise.all(options.reference.map(inputReference)) : undefined;
      await runOperation(
        {
          name: 'generate',
          path: '/v1/svgs/generations',
          operation: 'svg_generate',
          expected: options.count ?? 1,
          body: {
            prompt,
            n: options.count,
            instructions: options.instructions,
            references,
            temperature: options.temperature,
            top_p: options.topP,
            presence_penalty: options.presencePenalty,
            max_output_tokens: options.maxOutputTokens,
            reasoning_effort: options.reasoningEffort,
            attributes: options.viewBox ? { viewBox: options.viewBox } : undefined,
          },
        },
        options,
      );
    });
}
