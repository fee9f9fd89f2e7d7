// CSS colours as the animator needs them: parsed to sRGB, written as hex, shifted in hue.

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

// The CSS named colours (CSS Color 4), name:hex.
const NAMED = new Map<string, string>(
  (
    'aliceblue:f0f8ff,antiquewhite:faebd7,aqua:00ffff,aquamarine:7fffd4,azure:f0ffff,beige:f5f5dc,bisque:ffe4c4,black:000000,' +
    'blanchedalmond:ffebcd,blue:0000ff,blueviolet:8a2be2,brown:a52a2a,burlywood:deb887,cadetblue:5f9ea0,chartreuse:7fff00,' +
    'chocolate:d2691e,coral:ff7f50,cornflowerblue:6495ed,cornsilk:fff8dc,crimson:dc143c,cyan:00ffff,darkblue:00008b,' +
    'darkcyan:008b8b,darkgoldenrod:b8860b,darkgray:a9a9a9,darkgreen:006400,darkgrey:a9a9a9,darkkhaki:bdb76b,' +
    'darkmagenta:8b008b,darkolivegreen:556b2f,darkorange:ff8c00,darkorchid:9932cc,darkred:8b0000,darksalmon:e9967a,' +
    'darkseagreen:8fbc8f,darkslateblue:483d8b,darkslategray:2f4f4f,darkslategrey:2f4f4f,darkturquoise:00ced1,' +
    'darkviolet:9400d3,deeppink:ff1493,deepskyblue:00bfff,dimgray:696969,dimgrey:696969,dodgerblue:1e90ff,' +
    'firebrick:b22222,floralwhite:fffaf0,forestgreen:228b22,fuchsia:ff00ff,gainsboro:dcdcdc,ghostwhite:f8f8ff,gold:ffd700,' +
    'goldenrod:daa520,gray:808080,green:008000,greenyellow:adff2f,grey:808080,honeydew:f0fff0,hotpink:ff69b4,' +
    'indianred:cd5c5c,indigo:4b0082,ivory:fffff0,khaki:f0e68c,lavender:e6e6fa,lavenderblush:fff0f5,lawngreen:7cfc00,' +
    'lemonchiffon:fffacd,lightblue:add8e6,lightcoral:f08080,lightcyan:e0ffff,lightgoldenrodyellow:fafad2,lightgray:d3d3d3,' +
    'lightgreen:90ee90,lightgrey:d3d3d3,lightpink:ffb6c1,lightsalmon:ffa07a,lightseagreen:20b2aa,lightskyblue:87cefa,' +
    'lightslategray:778899,lightslategrey:778899,lightsteelblue:b0c4de,lightyellow:ffffe0,lime:00ff00,limegreen:32cd32,' +
    'linen:faf0e6,magenta:ff00ff,maroon:800000,mediumaquamarine:66cdaa,mediumblue:0000cd,mediumorchid:ba55d3,' +
    'mediumpurple:9370db,mediumseagreen:3cb371,mediumslateblue:7b68ee,mediumspringgreen:00fa9a,mediumturquoise:48d1cc,' +
    'mediumvioletred:c71585,midnightblue:191970,mintcream:f5fffa,mistyrose:ffe4e1,moccasin:ffe4b5,navajowhite:ffdead,' +
    'navy:000080,oldlace:fdf5e6,olive:808000,olivedrab:6b8e23,orange:ffa500,orangered:ff4500,orchid:da70d6,' +
    'palegoldenrod:eee8aa,palegreen:98fb98,paleturquoise:afeeee,palevioletred:db7093,papayawhip:ffefd5,peachpuff:ffdab9,' +
    'peru:cd853f,pink:ffc0cb,plum:dda0dd,powderblue:b0e0e6,purple:800080,rebeccapurple:663399,red:ff0000,rosybrown:bc8f8f,' +
    'royalblue:4169e1,saddlebrown:8b4513,salmon:fa8072,sandybrown:f4a460,seagreen:2e8b57,seashell:fff5ee,sienna:a0522d,' +
    'silver:c0c0c0,skyblue:87ceeb,slateblue:6a5acd,slategray:708090,slategrey:708090,snow:fffafa,springgreen:00ff7f,' +
    'steelblue:4682b4,tan:d2b48c,teal:008080,thistle:d8bfd8,tomato:ff6347,turquoise:40e0d0,violet:ee82ee,wheat:f5deb3,' +
    'white:ffffff,whitesmoke:f5f5f5,yellow:ffff00,yellowgreen:9acd32'
  )
    .split(',')
    .map((pair) => pair.split(':') as [string, string]),
);

/** An opaque colour, or undefined for anything else (transparent, alpha below 1, keywords, url()). */
export function parseOpaqueColour(value: string): Rgb | undefined {
  const v = value.trim().toLowerCase();
  const named = NAMED.get(v);
  if (named) return hex(named);
  if (/^#[0-9a-f]{3}$/.test(v)) return hex([...v.slice(1)].map((c) => c + c).join(''));
  if (/^#[0-9a-f]{4}$/.test(v)) return v[4] === 'f' ? hex([...v.slice(1, 4)].map((c) => c + c).join('')) : undefined;
  if (/^#[0-9a-f]{6}$/.test(v)) return hex(v.slice(1));
  if (/^#[0-9a-f]{8}$/.test(v)) return v.endsWith('ff') ? hex(v.slice(1, 7)) : undefined;
  const fn = /^(rgba?|hsla?)\(([^()]*)\)$/.exec(v);
  if (!fn) return undefined;
  const parts = fn[2]!.split(/[\s,/]+/).filter(Boolean);
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  if (parts.length === 4) {
    const alpha = parts[3]!.endsWith('%') ? Number.parseFloat(parts[3]!) / 100 : Number.parseFloat(parts[3]!);
    if (!(alpha >= 1)) return undefined;
  }
  const numbers = parts.slice(0, 3).map((p) => Number.parseFloat(p));
  if (numbers.some((n) => !Number.isFinite(n))) return undefined;
  if (fn[1]!.startsWith('rgb')) {
    const channel = (p: string, n: number) => clamp255(p.endsWith('%') ? (n * 255) / 100 : n);
    return { r: channel(parts[0]!, numbers[0]!), g: channel(parts[1]!, numbers[1]!), b: channel(parts[2]!, numbers[2]!) };
  }
  return hslToRgb(numbers[0]!, numbers[1]! / 100, numbers[2]! / 100);
}

function hex(h: string): Rgb {
  return { r: Number.parseInt(h.slice(0, 2), 16), g: Number.parseInt(h.slice(2, 4), 16), b: Number.parseInt(h.slice(4, 6), 16) };
}

const clamp255 = (n: number) => Math.min(255, Math.max(0, n));

/** `#rrggbb`, channels rounded. */
export function formatColour({ r, g, b }: Rgb): string {
  const h = (n: number) => Math.round(clamp255(n)).toString(16).padStart(2, '0');
  return `#${h(r)}${h(g)}${h(b)}`;
}

export function rgbToHsl({ r, g, b }: Rgb): { h: number; s: number; l: number } {
  const rn = r / 255;
  const gn = g / 255;
  const bn = b / 255;
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  if (max === min) return { h: 0, s: 0, l };
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === rn ? (gn - bn) / d + (gn < bn ? 6 : 0) : max === gn ? (bn - rn) / d + 2 : (rn - gn) / d + 4;
  return { h: h * 60, s, l };
}

export function hslToRgb(hDegrees: number, s: number, l: number): Rgb {
  const h = (((hDegrees % 360) + 360) % 360) / 360;
  const sat = Math.min(1, Math.max(0, s));
  const lig = Math.min(1, Math.max(0, l));
  if (sat === 0) return { r: lig * 255, g: lig * 255, b: lig * 255 };
  const q = lig < 0.5 ? lig * (1 + sat) : lig + sat - lig * sat;
  const p = 2 * lig - q;
  const channel = (t: number) => {
    const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (u < 1 / 6) return p + (q - p) * 6 * u;
    if (u < 1 / 2) return q;
    if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
    return p;
  };
  return { r: channel(h + 1 / 3) * 255, g: channel(h) * 255, b: channel(h - 1 / 3) * 255 };
}

/**
 * The colour shifted by `degrees` around the colour wheel. A colour with (almost) no hue —
 * black, white, greys — has nothing to rotate, so it is tinted instead: mixed halfway with the
 * hue at that angle, keeping some of its lightness.
 */
export function shiftHue(colour: Rgb, degrees: number): Rgb {
  const { h, s, l } = rgbToHsl(colour);
  if (s >= 0.15 && l > 0.04 && l < 0.96) return hslToRgb(h + degrees, s, l);
  const tint = hslToRgb(degrees, 0.85, 0.5);
  const mix = 0.45;
  return { r: colour.r + (tint.r - colour.r) * mix, g: colour.g + (tint.g - colour.g) * mix, b: colour.b + (tint.b - colour.b) * mix };
}

/** WCAG relative luminance of an sRGB colour, 0–1. */
export function relativeLuminance({ r, g, b }: Rgb): number {
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}
