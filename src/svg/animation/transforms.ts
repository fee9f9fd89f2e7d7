// Transforms: 2D matrices, SVG `transform` lists and CSS `transform` values, and their
// interpolation as CSS Transforms defines it.
import { angleDeg, fmt, lengthPx, numbersIn, parseNumber } from './numbers.ts';

/** A 2D affine matrix [a b c d e f] as SVG writes it. */
export type Matrix = [number, number, number, number, number, number];
export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

export function applyMatrix(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

const rad = (deg: number) => (deg * Math.PI) / 180;

/** One transform function with its arguments resolved to px and degrees. */
export interface TransformFunction {
  name: 'translate' | 'scale' | 'rotate' | 'skew' | 'skewX' | 'skewY' | 'matrix';
  args: number[];
}

export function functionMatrix(f: TransformFunction): Matrix {
  const [x = 0, y = 0] = f.args;
  switch (f.name) {
    case 'translate':
      return [1, 0, 0, 1, x, y];
    case 'scale':
      return [x, 0, 0, f.args.length > 1 ? y : x, 0, 0];
    case 'rotate': {
      const c = Math.cos(rad(x));
      const s = Math.sin(rad(x));
      const [, cx = 0, cy = 0] = f.args;
      // rotate(a cx cy) = translate(cx cy) rotate(a) translate(-cx -cy)
      return [c, s, -s, c, cx - c * cx + s * cy, cy - s * cx - c * cy];
    }
    case 'skew':
      return [1, Math.tan(rad(y)), Math.tan(rad(x)), 1, 0, 0];
    case 'skewX':
      return [1, 0, Math.tan(rad(x)), 1, 0, 0];
    case 'skewY':
      return [1, Math.tan(rad(x)), 0, 1, 0, 0];
    case 'matrix':
      return f.args.length === 6 ? (f.args as Matrix) : IDENTITY;
  }
}

export function listMatrix(list: TransformFunction[]): Matrix {
  return list.reduce<Matrix>((m, f) => multiply(m, functionMatrix(f)), IDENTITY);
}

/** An SVG `transform` attribute (unitless numbers, rotate with a centre), or undefined when malformed. */
export function parseSvgTransform(value: string): TransformFunction[] | undefined {
  const list: TransformFunction[] = [];
  const re = /\s*(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)\s*,?/gy;
  const text = value.trim();
  if (text === '' || text === 'none') return [];
  let at = 0;
  let match: RegExpExecArray | null;
  while (at < text.length && (match = re.exec(text))) {
    at = re.lastIndex;
    const args = numbersIn(match[2]!);
    const name = match[1] as TransformFunction['name'];
    const arity: Record<string, number[]> = { matrix: [6], translate: [1, 2], scale: [1, 2], rotate: [1, 3], skewX: [1], skewY: [1] };
    if (!arity[name]!.includes(args.length)) return undefined;
    list.push({ name, args: name === 'translate' && args.length === 1 ? [args[0]!, 0] : args });
  }
  return at >= text.length ? list : undefined;
}

/** The reference box CSS transforms resolve percentages and `transform-origin` against. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A CSS `transform` value (`translateX(10px) rotate(45deg)`, also SVG's unitless syntax),
 * percentages against the reference box. 3D functions are flattened the way they look without
 * perspective: rotateX(a) as scaleY(cos a), rotateY(a) as scaleX(cos a), Z parts dropped.
 */
export function parseCssTransform(value: string, box: Box): TransformFunction[] | undefined {
  const text = value.trim();
  if (text === '' || text.toLowerCase() === 'none') return [];
  const list: TransformFunction[] = [];
  const re = /\s*([a-zA-Z0-9]+)\s*\(([^)]*)\)\s*/gy;
  let at = 0;
  let match: RegExpExecArray | null;
  while (at < text.length && (match = re.exec(text))) {
    at = re.lastIndex;
    const f = cssTransformFunction(match[1]!.toLowerCase(), match[2]!.split(/\s*,\s*|\s+/).filter(Boolean), box);
    if (!f) return undefined;
    list.push(f);
  }
  return at >= text.length ? list : undefined;
}

/** One CSS transform function (name in lower case) as a plane one; undefined when unknown or malformed. */
function cssTransformFunction(name: string, args: string[], box: Box): TransformFunction | undefined {
  const read = argumentsOf(args);
  if (name.startsWith('translate') || name === 'perspective') return translateFunction(name, read, box);
  if (name.startsWith('scale')) return scaleFunction(name, read);
  if (name.startsWith('rotate')) return rotateFunction(name, read);
  if (name.startsWith('skew')) return skewFunction(name, read);
  if (name === 'matrix' || name === 'matrix3d') return matrixFunction(name, args);
  return undefined;
}

type Arguments = ReturnType<typeof argumentsOf>;

/** A function's arguments read by position: a missing length or angle is 0, a missing number undefined. */
function argumentsOf(args: string[]) {
  const num = (i: number) => parseNumber(args[i]);
  return {
    count: args.length,
    len: (i: number, basis: number) => (args[i] === undefined ? 0 : lengthPx(args[i]!, basis)),
    ang: (i: number) => (args[i] === undefined ? 0 : angleDeg(args[i]!)),
    num,
    /** A number, or a percentage as a fraction. */
    pct: (i: number) => (args[i]?.endsWith('%') ? parseNumber(args[i]!.slice(0, -1))! / 100 : num(i)),
  };
}

function translateFunction(name: string, read: Arguments, box: Box): TransformFunction | undefined {
  switch (name) {
    case 'translate':
    case 'translate3d': {
      const x = read.len(0, box.width);
      const y = read.len(1, box.height);
      return x !== undefined && y !== undefined ? { name: 'translate', args: [x, y] } : undefined;
    }
    case 'translatex':
    case 'translatey': {
      const v = read.len(0, name === 'translatex' ? box.width : box.height);
      return v !== undefined ? { name: 'translate', args: name === 'translatex' ? [v, 0] : [0, v] } : undefined;
    }
    case 'translatez':
    case 'perspective':
      return { name: 'translate', args: [0, 0] };
    default:
      return undefined;
  }
}

function scaleFunction(name: string, read: Arguments): TransformFunction | undefined {
  switch (name) {
    case 'scale':
    case 'scale3d': {
      const x = read.pct(0);
      const y = read.count > 1 ? read.pct(1) : x;
      return x !== undefined && y !== undefined ? { name: 'scale', args: [x, y] } : undefined;
    }
    case 'scalex':
    case 'scaley': {
      const v = read.pct(0);
      return v !== undefined ? { name: 'scale', args: name === 'scalex' ? [v, 1] : [1, v] } : undefined;
    }
    case 'scalez':
      return { name: 'scale', args: [1, 1] };
    default:
      return undefined;
  }
}

function rotateFunction(name: string, read: Arguments): TransformFunction | undefined {
  switch (name) {
    case 'rotate':
    case 'rotatez': {
      // SVG's rotate(a cx cy) is accepted in CSS only as rotate(a); a centre is honoured for SVG syntax.
      const a = read.ang(0);
      if (a !== undefined && read.count === 1) return { name: 'rotate', args: [a] };
      const cx = read.num(1);
      const cy = read.num(2);
      return a !== undefined && read.count === 3 && cx !== undefined && cy !== undefined ? { name: 'rotate', args: [a, cx, cy] } : undefined;
    }
    case 'rotatex':
    case 'rotatey': {
      const a = read.ang(0);
      return a !== undefined ? { name: 'scale', args: name === 'rotatex' ? [1, Math.cos(rad(a))] : [Math.cos(rad(a)), 1] } : undefined;
    }
    case 'rotate3d': {
      const [x, y, z] = [read.num(0), read.num(1), read.num(2)];
      const a = read.ang(3);
      if (x === undefined || y === undefined || z === undefined || a === undefined) return undefined;
      const n = Math.hypot(x, y, z) || 1;
      // Only the Z part rotates in the plane; X and Y parts foreshorten.
      if (Math.abs(z / n) > 0.999) return { name: 'rotate', args: [Math.sign(z) * a] };
      return { name: 'scale', args: [Math.abs(x / n) > 0.5 ? 1 : Math.cos(rad(a)), Math.abs(y / n) > 0.5 ? 1 : Math.cos(rad(a))] };
    }
    default:
      return undefined;
  }
}

function skewFunction(name: string, read: Arguments): TransformFunction | undefined {
  switch (name) {
    case 'skew': {
      const x = read.ang(0);
      const y = read.count > 1 ? read.ang(1) : 0;
      return x !== undefined && y !== undefined ? { name: 'skew', args: [x, y] } : undefined;
    }
    case 'skewx':
    case 'skewy': {
      const a = read.ang(0);
      return a !== undefined ? { name: name === 'skewx' ? 'skewX' : 'skewY', args: [a] } : undefined;
    }
    default:
      return undefined;
  }
}

/** `matrix(a b c d e f)`, and the plane part of `matrix3d(…)`. */
function matrixFunction(name: string, args: string[]): TransformFunction | undefined {
  const n = args.map((a) => parseNumber(a));
  if (!n.every((v) => v !== undefined)) return undefined;
  const m = n as number[];
  if (name === 'matrix') return m.length === 6 ? { name: 'matrix', args: m } : undefined;
  return m.length === 16 ? { name: 'matrix', args: [m[0]!, m[1]!, m[4]!, m[5]!, m[12]!, m[13]!] } : undefined;
}

/** A `transform-origin` value (keywords, lengths, percentages of the box) as a point in user space. */
export function originPoint(value: string, box: Box): [number, number] {
  const tokens = value.trim().split(/\s+/);
  let x: number | undefined;
  let y: number | undefined;
  const horizontal: Record<string, number> = { left: 0, center: 0.5, right: 1 };
  const vertical: Record<string, number> = { top: 0, center: 0.5, bottom: 1 };
  const pending: string[] = [];
  for (const token of tokens.slice(0, 2)) {
    const t = token.toLowerCase();
    if (t in horizontal && t !== 'center' && x === undefined) x = horizontal[t]! * box.width;
    else if (t in vertical && t !== 'center' && y === undefined) y = vertical[t]! * box.height;
    else pending.push(t);
  }
  for (const t of pending) {
    if (x === undefined) x = t === 'center' ? box.width / 2 : lengthPx(t, box.width);
    else if (y === undefined) y = t === 'center' ? box.height / 2 : lengthPx(t, box.height);
  }
  if (tokens.length === 1 && y === undefined) y = box.height / 2;
  return [box.x + (x ?? box.width / 2), box.y + (y ?? box.height / 2)];
}

/** The identity function of a transform function's kind (for interpolating from `none`). */
function identityOf(f: TransformFunction): TransformFunction {
  switch (f.name) {
    case 'scale':
      return { name: 'scale', args: [1, 1] };
    case 'matrix':
      return { name: 'matrix', args: [...IDENTITY] };
    case 'rotate':
      return { name: 'rotate', args: f.args.length === 3 ? [0, f.args[1]!, f.args[2]!] : [0] };
    case 'skew':
      return { name: 'skew', args: [0, 0] };
    default:
      return { name: f.name, args: f.args.map(() => 0) };
  }
}

/**
 * Interpolates two transform lists as CSS does: function by function when they have the same
 * kinds (a missing side counts as identity functions), else through the decomposition of their
 * 2D matrices (translation, rotation, scale and skew interpolated separately).
 */
export function interpolateTransforms(from: TransformFunction[], to: TransformFunction[], p: number): TransformFunction[] {
  const a = from.length === 0 ? to.map(identityOf) : from;
  const b = to.length === 0 ? from.map(identityOf) : to;
  const pairwise = a.length === b.length && a.every((f, i) => f.name === b[i]!.name && f.args.length === b[i]!.args.length);
  if (pairwise) return a.map((f, i) => ({ name: f.name, args: f.args.map((v, j) => v + (b[i]!.args[j]! - v) * p) }));
  return [{ name: 'matrix', args: interpolateMatrices(listMatrix(a), listMatrix(b), p) }];
}

interface Decomposed {
  translate: [number, number];
  scale: [number, number];
  angle: number;
  m: [number, number, number, number];
}

/** CSS Transforms 1, "Decomposing a 2D matrix". */
function decompose(matrix: Matrix): Decomposed {
  let [row0x, row0y, row1x, row1y] = matrix;
  const translate: [number, number] = [matrix[4], matrix[5]];
  const scale: [number, number] = [Math.hypot(row0x, row0y), Math.hypot(row1x, row1y)];
  const determinant = row0x * row1y - row0y * row1x;
  if (determinant < 0) {
    if (row0x < row1y) scale[0] = -scale[0];
    else scale[1] = -scale[1];
  }
  if (scale[0]) {
    row0x /= scale[0];
    row0y /= scale[0];
  }
  if (scale[1]) {
    row1x /= scale[1];
    row1y /= scale[1];
  }
  const angle = Math.atan2(row0y, row0x);
  if (angle) {
    const sn = -row0y;
    const cs = row0x;
    const [m11, m12, m21, m22] = [row0x, row0y, row1x, row1y];
    row0x = cs * m11 + sn * m21;
    row0y = cs * m12 + sn * m22;
    row1x = -sn * m11 + cs * m21;
    row1y = -sn * m12 + cs * m22;
  }
  return { translate, scale, angle: (angle * 180) / Math.PI, m: [row0x, row0y, row1x, row1y] };
}

function recompose(d: Decomposed): Matrix {
  let m: Matrix = [d.m[0], d.m[1], d.m[2], d.m[3], 0, 0];
  m = multiply([1, 0, 0, 1, d.translate[0], d.translate[1]], multiply(functionMatrix({ name: 'rotate', args: [d.angle] }), m));
  return multiply(m, [d.scale[0], 0, 0, d.scale[1], 0, 0]);
}

/**
 * The decomposition browsers use (CSS Transforms 2's 3D "unmatrix", here for plane matrices):
 * translation, rotation, an XY shear and scale, M = T · R(θ) · skewX(atan k) · S.
 */
function unmatrix(m: Matrix): { tx: number; ty: number; angle: number; shear: number; sx: number; sy: number } {
  const sx = Math.hypot(m[0], m[1]);
  const ux = m[0] / sx;
  const uy = m[1] / sx;
  let shear = ux * m[2] + uy * m[3];
  const vx = m[2] - shear * ux;
  const vy = m[3] - shear * uy;
  const sy = Math.hypot(vx, vy);
  shear /= sy;
  return { tx: m[4], ty: m[5], angle: (Math.atan2(uy, ux) * 180) / Math.PI, shear, sx, sy };
}

export function interpolateMatrices(from: Matrix, to: Matrix, p: number): Matrix {
  const det = (m: Matrix) => m[0] * m[3] - m[1] * m[2];
  if (det(from) > 0 && det(to) > 0) {
    const a = unmatrix(from);
    const b = unmatrix(to);
    // Rotations take the shorter way round (quaternion slerp about the Z axis).
    let delta = b.angle - a.angle;
    if (delta > 180) delta -= 360;
    if (delta < -180) delta += 360;
    const lerp = (x: number, y: number) => x + (y - x) * p;
    const r = functionMatrix({ name: 'rotate', args: [a.angle + delta * p] });
    let m = multiply([1, 0, 0, 1, lerp(a.tx, b.tx), lerp(a.ty, b.ty)], r);
    m = multiply(m, [1, 0, lerp(a.shear, b.shear), 1, 0, 0]);
    return multiply(m, [lerp(a.sx, b.sx), 0, 0, lerp(a.sy, b.sy), 0, 0]);
  }
  const a = decompose(from);
  const b = decompose(to);
  if ((a.scale[0] < 0 && b.scale[1] < 0) || (a.scale[1] < 0 && b.scale[0] < 0)) {
    a.scale = [-a.scale[0], -a.scale[1]];
    a.angle += a.angle < 0 ? 180 : -180;
  }
  if (!a.angle) a.angle = 360;
  if (!b.angle) b.angle = 360;
  if (Math.abs(a.angle - b.angle) > 180) {
    if (a.angle > b.angle) a.angle -= 360;
    else b.angle -= 360;
  }
  const lerp = (x: number, y: number) => x + (y - x) * p;
  return recompose({
    translate: [lerp(a.translate[0], b.translate[0]), lerp(a.translate[1], b.translate[1])],
    scale: [lerp(a.scale[0], b.scale[0]), lerp(a.scale[1], b.scale[1])],
    angle: lerp(a.angle, b.angle),
    m: [lerp(a.m[0], b.m[0]), lerp(a.m[1], b.m[1]), lerp(a.m[2], b.m[2]), lerp(a.m[3], b.m[3])],
  });
}

export function formatMatrix(m: Matrix): string {
  return `matrix(${m.map(fmt).join(' ')})`;
}
