import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SETTINGS } from '../../src/config/settings.ts';
import { configReference, DOC_PATH, FIX_COMMAND } from '../../scripts/config-reference.ts';

describe('the configuration reference', () => {
  it(`matches the committed docs/configuration.md (run \`${FIX_COMMAND}\` after changing a setting or the config schema)`, () => {
    const committed = readFileSync(DOC_PATH, 'utf8');
    const { text } = configReference();
    // assert.equal's diff of two long documents is unreadable: name the first line that differs.
    if (committed !== text) {
      const want = text.split('\n');
      const have = committed.split('\n');
      const line = want.findIndex((l, i) => l !== have[i]);
      assert.fail(
        `docs/configuration.md is out of date; run \`${FIX_COMMAND}\`.\n` +
          `First difference at line ${line + 1}:\n  committed: ${have[line] ?? '(end of file)'}\n  generated: ${want[line] ?? '(end of file)'}`,
      );
    }
  });

  it('lists every setting with its flag, environment variable and config key', () => {
    const { text } = configReference();
    for (const setting of SETTINGS) {
      assert.match(text, new RegExp(`\\| \`${setting.flag}[^|]*\` \\| \`${setting.env}\` \\| \`${setting.path}\` \\|`), setting.env);
    }
  });
});
