// Declaration blocks (`prop: value; …`), read once for every user: a rule's body, a keyframe, a
// `style` attribute.
import { expandAnimationShorthand } from './animation-shorthand.ts';
import { splitTopLevel, stripComments } from './text.ts';

export interface Declaration {
  /** Lower-case property name (`animation-duration`, `fill`, …); custom properties keep their case. */
  property: string;
  value: string;
  important: boolean;
}

const PROPERTY_NAME = /^-?[a-zA-Z_][\w-]*$/;
const IMPORTANT = /!\s*important\s*$/i;

/**
 * The declarations of a block, in order: comments dropped, split on the `;` outside strings and
 * parentheses, `!important` read, declarations without a valid name or a value skipped, and the
 * `animation` shorthand expanded into its longhands.
 */
export function readDeclarations(block: string): Declaration[] {
  const out: Declaration[] = [];
  for (const part of splitTopLevel(stripComments(block), ';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const rawName = part.slice(0, colon).trim();
    if (!PROPERTY_NAME.test(rawName) && !rawName.startsWith('--')) continue;
    const property = rawName.startsWith('--') ? rawName : rawName.toLowerCase();
    let value = part.slice(colon + 1).trim();
    let important = false;
    const bang = IMPORTANT.exec(value);
    if (bang) {
      important = true;
      value = value.slice(0, bang.index).trim();
    }
    if (value === '') continue;
    if (property === 'animation') {
      for (const longhand of expandAnimationShorthand(value)) out.push({ ...longhand, important });
    } else {
      out.push({ property, value, important });
    }
  }
  return out;
}
