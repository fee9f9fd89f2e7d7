/**
 * Rewrites the path data VTracer emits (absolute M/L/C/Z, two decimals, cubic curves even for
 * straight runs, a translate() per path) as short relative data: straight cubics become lines,
 * lines become h/v where they can, every number is rounded to `decimals` and written without
 * needless zeros or separators. Coordinates are rounded in absolute terms before differencing,
 * so rounding error never accumulates along a path.
 */
export function compactPathData(d: string, offsetX: number, offsetY: number, decimals: number): string {
  return compactPathPieces([{ d, offsetX, offsetY }], decimals);
}

/** Several paths of one fill written as one: each piece starts with a move, relative to the last. */
export function compactPathPieces(pieces: { d: string; offsetX: number; offsetY: number }[], decimals: number): string {
  const writer = new RelativePathWriter(decimals);
  const reader = new AbsolutePathReader(writer);
  for (const piece of pieces) reader.read(piece.d, piece.offsetX, piece.offsetY);
  return writer.toString();
}

/** Command letters and numbers; anything else (separators, stray characters) falls away. */
const TOKEN = /[MLCZmlcz]|-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/g;

/**
 * Reads VTracer's absolute path data and replays it on a writer, each point translated by the
 * piece's offset and rounded to whole units of the writer's precision. Rounding here, on absolute
 * coordinates, is what keeps rounding error from accumulating in the relative output.
 *
 * The reader is lenient, as VTracer's output needs nothing more: lower-case letters are read as
 * absolute, a token with a letter in it (an exponent such as `1e2`) is taken as an unknown
 * command whose numbers are skipped, a number with no command is skipped, and a pair cut short
 * reads as NaN. The current command carries on from one piece into the next.
 */
class AbsolutePathReader {
  private command = '';
  private tokens: string[] = [];
  private index = 0;
  private offsetX = 0;
  private offsetY = 0;

  constructor(private readonly writer: RelativePathWriter) {}

  read(d: string, offsetX: number, offsetY: number): void {
    this.tokens = d.match(TOKEN) ?? [];
    this.index = 0;
    this.offsetX = offsetX;
    this.offsetY = offsetY;
    while (this.index < this.tokens.length) this.step();
  }

  /** Consumes one command letter, or the numbers of one segment of the current command. */
  private step(): void {
    const token = this.tokens[this.index]!;
    if (/[A-Za-z]/.test(token)) {
      this.index++;
      this.command = token.toUpperCase();
      if (this.command === 'Z') this.writer.close();
      return;
    }
    switch (this.command) {
      case 'M':
        this.writer.moveTo(this.x(), this.y());
        this.command = 'L'; // further pairs after M are lines
        break;
      case 'L':
        this.writer.lineTo(this.x(), this.y());
        break;
      case 'C':
        // Arguments are evaluated left to right: the tokens are read in their order.
        this.writer.curveTo(this.x(), this.y(), this.x(), this.y(), this.x(), this.y());
        break;
      default:
        this.index++; // a number with no command: malformed input, skipped
    }
  }

  private x(): number {
    return Math.round((Number(this.tokens[this.index++]) + this.offsetX) * this.writer.scale);
  }

  private y(): number {
    return Math.round((Number(this.tokens[this.index++]) + this.offsetY) * this.writer.scale);
  }
}

/**
 * Writes path commands given in absolute, rounded units as the shortest relative path data:
 * relative m/l/c, h/v for axis-aligned lines, nothing for a line that goes nowhere, a repeated
 * command letter left implied, and a separator between numbers only where the next number's
 * own sign or decimal point does not already end the last one.
 */
class RelativePathWriter {
  /** Units per user-space unit (10^decimals): coordinates come in, and numbers go out, as whole units. */
  readonly scale: number;
  private readonly out: string[] = [];
  /** Last command letter written, so a repeat can be implied. */
  private lastCommand = '';
  /** Last number written since the last letter, to decide whether a separator is needed. */
  private lastNumber = '';
  /** The current point, in rounded units: what the next relative numbers count from. */
  private x = 0;
  private y = 0;
  /** Where the current subpath began: a close returns there. */
  private startX = 0;
  private startY = 0;

  constructor(private readonly decimals: number) {
    this.scale = 10 ** decimals;
  }

  moveTo(x: number, y: number): void {
    this.writeCommand('m');
    this.writeNumber(x - this.x);
    this.writeNumber(y - this.y);
    this.x = this.startX = x;
    this.y = this.startY = y;
  }

  lineTo(x: number, y: number): void {
    if (x === this.x && y === this.y) return;
    if (y === this.y) {
      this.writeCommand('h');
      this.writeNumber(x - this.x);
    } else if (x === this.x) {
      this.writeCommand('v');
      this.writeNumber(y - this.y);
    } else {
      this.writeCommand('l');
      this.writeNumber(x - this.x);
      this.writeNumber(y - this.y);
    }
    this.x = x;
    this.y = y;
  }

  /** A cubic whose control points lie on its chord is written as a line (VTracer draws straight runs as curves). */
  curveTo(c1x: number, c1y: number, c2x: number, c2y: number, x: number, y: number): void {
    if (isStraight(this.x, this.y, c1x, c1y, c2x, c2y, x, y, this.scale)) {
      this.lineTo(x, y);
      return;
    }
    this.writeCommand('c');
    this.writeNumber(c1x - this.x);
    this.writeNumber(c1y - this.y);
    this.writeNumber(c2x - this.x);
    this.writeNumber(c2y - this.y);
    this.writeNumber(x - this.x);
    this.writeNumber(y - this.y);
    this.x = x;
    this.y = y;
  }

  /** Written every time, even right after another close: a close is not a command that repeats implicitly. */
  close(): void {
    this.out.push('z');
    this.lastCommand = 'z';
    this.lastNumber = '';
    this.x = this.startX;
    this.y = this.startY;
  }

  toString(): string {
    return this.out.join('');
  }

  private writeCommand(letter: string): void {
    // An implied repeat: the numbers just follow on. Never for m, whose repeated pairs would be lines.
    if (letter === this.lastCommand && letter !== 'm') return;
    this.out.push(letter);
    this.lastCommand = letter;
    this.lastNumber = '';
  }

  /** A number needs a space before it unless it starts with '-', or with '.' after a number that already has one. */
  private writeNumber(units: number): void {
    const text = formatUnits(units, this.decimals, this.scale);
    const needsSeparator = this.lastNumber !== '' && text[0] !== '-' && !(text[0] === '.' && this.lastNumber.includes('.'));
    this.out.push(needsSeparator ? ` ${text}` : text);
    this.lastNumber = text;
  }
}

/** Both control points within a fifth of a pixel of the chord, and between its ends. */
function isStraight(x0: number, y0: number, x1: number, y1: number, x2: number, y2: number, x3: number, y3: number, scale: number): boolean {
  const dx = x3 - x0;
  const dy = y3 - y0;
  const length = Math.hypot(dx, dy);
  const tolerance = 0.2 * scale;
  if (length < 1e-9) return Math.hypot(x1 - x0, y1 - y0) <= tolerance && Math.hypot(x2 - x0, y2 - y0) <= tolerance;
  for (const [px, py] of [
    [x1, y1],
    [x2, y2],
  ] as const) {
    const distance = Math.abs((px - x0) * dy - (py - y0) * dx) / length;
    const along = ((px - x0) * dx + (py - y0) * dy) / (length * length);
    if (distance > tolerance || along < -0.05 || along > 1.05) return false;
  }
  return true;
}

/** `#RRGGBB` as the shortest lowercase hex. */
export function compactColour(hex: string): string {
  const h = hex.toLowerCase();
  return /^#([0-9a-f])\1([0-9a-f])\2([0-9a-f])\3$/.test(h) ? `#${h[1]}${h[3]}${h[5]}` : h;
}

/** A colour, 0–255 a channel, as the shortest lowercase hex. */
export function hexColour([r, g, b]: [number, number, number]): string {
  return compactColour(`#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`);
}

/** An integer count of 1/scale units as the shortest decimal: 5 → ".5", -15 → "-1.5", 20 → "2". */
function formatUnits(units: number, decimals: number, scale: number): string {
  if (decimals === 0) return String(units);
  const sign = units < 0 ? '-' : '';
  const magnitude = Math.abs(units);
  const whole = Math.floor(magnitude / scale);
  let fraction = String(magnitude - whole * scale).padStart(decimals, '0').replace(/0+$/, '');
  if (fraction) fraction = `.${fraction}`;
  return whole === 0 ? (fraction ? sign + fraction : '0') : sign + whole + fraction;
}
