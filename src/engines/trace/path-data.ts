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
  const scale = 10 ** decimals;
  const q = (n: number) => Math.round(n * scale);
  const out: string[] = [];
  let last = ''; // last command letter written, so repeats can be implied
  let lastNumber = ''; // last number written, to decide whether a separator is needed
  const num = (units: number) => {
    const text = formatUnits(units, decimals, scale);
    const needsSeparator = lastNumber !== '' && text[0] !== '-' && !(text[0] === '.' && lastNumber.includes('.'));
    out.push(needsSeparator ? ` ${text}` : text);
    lastNumber = text;
  };
  const command = (letter: string) => {
    if (letter === last && letter !== 'm') return; // an implied repeat: the numbers just follow on
    out.push(letter);
    last = letter;
    lastNumber = '';
  };

  let x = 0; // current point, in rounded units
  let y = 0;
  let startX = 0;
  let startY = 0;
  let cmd = '';
  let tokens: string[] = [];
  let i = 0;
  let offsetX = 0;
  let offsetY = 0;
  const next = () => Number(tokens[i++]);
  const absX = () => q(next() + offsetX);
  const absY = () => q(next() + offsetY);
  const lineTo = (nx: number, ny: number) => {
    if (nx === x && ny === y) return;
    if (ny === y) {
      command('h');
      num(nx - x);
    } else if (nx === x) {
      command('v');
      num(ny - y);
    } else {
      command('l');
      num(nx - x);
      num(ny - y);
    }
    x = nx;
    y = ny;
  };
  for (const piece of pieces) {
    tokens = piece.d.match(/[MLCZmlcz]|-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/g) ?? [];
    i = 0;
    offsetX = piece.offsetX;
    offsetY = piece.offsetY;
    writePiece();
  }
  return out.join('');

  function writePiece(): void {
    while (i < tokens.length) {
      const token = tokens[i]!;
      if (/[A-Za-z]/.test(token)) {
        cmd = token.toUpperCase();
        i++;
        if (cmd === 'Z') {
          out.push('z');
          last = 'z';
          lastNumber = '';
          x = startX;
          y = startY;
        }
        continue;
      }
      if (cmd === 'M') {
        const nx = absX();
        const ny = absY();
        command('m');
        num(nx - x);
        num(ny - y);
        x = startX = nx;
        y = startY = ny;
        cmd = 'L'; // further pairs after M are lines
      } else if (cmd === 'L') {
        lineTo(absX(), absY());
      } else if (cmd === 'C') {
        const c1x = absX();
        const c1y = absY();
        const c2x = absX();
        const c2y = absY();
        const nx = absX();
        const ny = absY();
        if (isStraight(x, y, c1x, c1y, c2x, c2y, nx, ny, scale)) {
          lineTo(nx, ny);
          continue;
        }
        command('c');
        num(c1x - x);
        num(c1y - y);
        num(c2x - x);
        num(c2y - y);
        num(nx - x);
        num(ny - y);
        x = nx;
        y = ny;
      } else {
        i++; // a number with no command: malformed input, skipped
      }
    }
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
