/** An ANSI escape sequence (CSI such as `ESC[2J`, or a two-character escape). */
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|[@-_])/g;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g;

/** Text from a server, made safe for one terminal line: no escape sequences, no line breaks. */
export function printable(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL_CHARACTERS, ' ').trim();
}
