/**
 * Builds the tracer benchmark's image set from material shipped in npm packages (this folder's
 * devDependencies) and Debian packages (fetched with `apt-get download`, unpacked with dpkg-deb):
 * .cache/images/<category>/<name>.png plus .cache/images/manifest.json with each image's
 * provenance. Every image is named in the lists below, so every run traces the same set.
 * Usage: node --import tsx build-set.ts [--force]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const CACHE_DIR = join(BENCH_DIR, '.cache');
export const IMAGES_DIR = join(CACHE_DIR, 'images');
export const MANIFEST = join(IMAGES_DIR, 'manifest.json');
const DEB_DIR = join(CACHE_DIR, 'debian');

export const CATEGORIES = ['icons', 'emoji', 'logos', 'illustrations', 'line-art', 'photos', 'pixel-art', 'smooth'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface ManifestEntry {
  category: Category;
  name: string;
  /** Path of the PNG, relative to the images folder. */
  file: string;
  width: number;
  height: number;
  /** Whether any pixel has alpha below 255. */
  transparent: boolean;
  source: { registry: 'npm' | 'debian'; package: string; version: string; path: string; license: string };
  /** How the PNG was made from the source file. */
  made: string;
}

/** Debian 12 packages, pinned; the version actually fetched is what the manifest records. */
const DEBS: Record<string, { version: string; license: string }> = {
  'tango-icon-theme': { version: '0.8.90-11', license: 'public domain' },
  'openclipart-svg': { version: '1:0.18+dfsg-19', license: 'public domain (Open Clip Art Library)' },
  'python3-skimage': { version: '0.19.3-8', license: 'see each photo' },
  'angband-data': { version: '1:3.5.1-2.5', license: 'public domain (Adam Bolt 16x16 tiles)' },
  'desktop-base': { version: '12.0.6+nmu1~deb12u1', license: 'see each wallpaper' },
  'lomiri-wallpapers': { version: '20.04.0-2', license: 'CC-BY-SA-3.0 (Nathaniel McCallum, Daniel Holbach, Ubuntu community contributors)' },
  'gnome-icon-theme': { version: '3.12.0-5', license: 'GPL-2+ (GNOME icon artists: Jakub Steiner, Lapo Calamandrei and others)' },
};

/** svg: rasterize at this longest side; fit: resize a bitmap to fit inside this size; pixels: nearest-neighbour scale. */
type Make = { svg: number } | { fit: number } | { pixels: number; crop?: [number, number, number, number] };

interface Spec {
  category: Category;
  name: string;
  npm?: string;
  deb?: string;
  /** Path inside the package; for @iconify-json sets, `icons.json#<icon>`. */
  path: string;
  make: Make;
  license?: string;
  /** Turns the source SVG text into the SVG to rasterize. */
  edit?: (svg: string) => string;
}

// Sizes: the longest side of each image, chosen to keep a full run near two minutes on 2 cores.
const ICON = 256;
const LOGO = 320;
const ILLUSTRATION = 384;
const LINE = 320;
const PHOTO = 512;
const WALLPAPER = 512;
/** Tango bitmap sizes scaled to ~256 px. */
const SCALE: Record<string, number> = { '16x16': 16, '22x22': 12, '32x32': 8 };

const iconify = (category: Category, set: string, icons: string[], size: number, edit?: (svg: string) => string): Spec[] =>
  icons.map((icon) => ({ category, name: `${set}-${icon}`, npm: `@iconify-json/${set}`, path: `icons.json#${icon}`, make: { svg: size }, ...(edit ? { edit } : {}) }));
const tango = (category: Category, paths: string[], make: (path: string) => Make): Spec[] =>
  paths.map((path) => ({ category, name: `tango-${path.split('/').pop()!.replace(/\.\w+$/, '')}`, deb: 'tango-icon-theme', path: `/usr/share/icons/Tango/${path}`, make: make(path) }));
const clipart = (category: Category, paths: string[], size: number): Spec[] =>
  paths.map((path) => ({ category, name: `openclipart-${path.split('/').pop()!.replace(/\.svg$/, '')}`, deb: 'openclipart-svg', path: `/usr/share/openclipart/svg/${path}`, make: { svg: size } }));
const photo = (name: string, license: string, ext = 'png'): Spec => ({
  category: 'photos', name: `skimage-${name}`, deb: 'python3-skimage', path: `/usr/lib/python3/dist-packages/skimage/data/${name}.${ext}`, make: { fit: PHOTO }, license,
});

export const SPECS: Spec[] = [
  // Full-colour icons: Tango (gradients, semi-transparent drop shadows) and flat ones.
  ...tango('icons', [
    'scalable/apps/internet-web-browser.svg', 'scalable/apps/accessories-text-editor.svg', 'scalable/apps/utilities-terminal.svg',
    'scalable/devices/camera-photo.svg', 'scalable/places/user-home.svg', 'scalable/status/weather-few-clouds.svg',
  ], () => ({ svg: ICON })),
  ...iconify('icons', 'flat-color-icons', ['calculator', 'globe', 'music', 'idea'], ICON),

  ...iconify('emoji', 'noto', ['grinning-face', 'fox', 'fire', 'birthday-cake', 'penguin'], ICON),
  ...iconify('emoji', 'twemoji', ['unicorn', 'rainbow', 'octopus', 'party-popper', 'globe-showing-europe-africa'], ICON),

  ...iconify('logos', 'logos', ['firefox', 'chrome', 'docker-icon', 'slack-icon', 'google-icon', 'python', 'react', 'figma', 'netflix', 'mastodon-icon'], LOGO),

  ...['access-denied', 'database', 'identity', 'not-found'].map((name): Spec => ({
    category: 'illustrations', name: `gravity-${name}`, npm: '@gravity-ui/illustrations', path: `svgs/${name}-light.svg`, make: { svg: ILLUSTRATION },
  })),
  ...clipart('illustrations', [
    'recreation/toys/rubber_duck2_ganson.svg', 'food/fruit/watermelon_simple.svg', 'people/sub_subacqueo_architetto_01.svg',
    'animals/bugs/ladybug_01.svg', 'food/apple_bitten_dan_gerhard_01.svg', 'food/menu_example5.svg',
  ], ILLUSTRATION),

  // Line art: thin-stroke icons (Tabler's 2px stroke thinned to 1.25 so lines are ~16px, not 27px) and black-and-white clip art.
  ...iconify('line-art', 'tabler', ['bike', 'building-castle', 'plant-2', 'sailboat', 'paw'], LINE, (svg) => svg.replaceAll('stroke-width="2"', 'stroke-width="1.25"')),
  ...clipart('line-art', [
    'food/fruit/strawberry_simple_bw.svg', 'food/beverages/milk_bw.svg', 'food/pizza_pepperoni_bw.svg',
    'food/crawfish2_bw_ganson.svg', 'animals/mammals/dall_sheep_ram_ganson.svg',
  ], LINE),

  // Photographs shipped as scikit-image sample data (licenses from skimage/data/_fetchers.py).
  photo('astronaut', 'public domain (NASA)'),
  photo('chelsea', 'CC0 (Stefan van der Walt)'),
  photo('coffee', 'CC0 (Rachel Michetti)'),
  photo('rocket', 'public domain (SpaceX)', 'jpg'),
  photo('camera', 'CC0 (Lav Varshney)'),
  photo('coins', 'public domain (Brooklyn Museum; no known restrictions)'),
  photo('hubble_deep_field', 'public domain (NASA)', 'jpg'),
  photo('retina', 'CC0 (Häggström)', 'jpg'),
  photo('brick', 'CC0 (CC0Textures)'),
  photo('ihc', 'no known copyright restrictions (immunohistochemistry micrograph)'),

  // Pixel art: Adam Bolt's 16x16 Angband tiles (2x2-tile crops) and Tango's hand-drawn small
  // bitmaps, scaled up with nearest neighbour so the pixel grid stays hard-edged.
  ...([[14, 18], [6, 30], [6, 38], [12, 40], [28, 32]] as const).map(([col, row]): Spec => ({
    category: 'pixel-art', name: `angband-tiles-${col}-${row}`, deb: 'angband-data', path: '/usr/share/angband/xtra/graf/16x16.png',
    make: { pixels: 8, crop: [col * 16, row * 16, 32, 32] },
  })),
  ...tango('pixel-art', [
    '32x32/apps/internet-mail.png', '32x32/status/weather-storm.png', '22x22/apps/utilities-system-monitor.png',
    '16x16/devices/input-gaming.png', '16x16/status/dialog-warning.png',
  ], (path) => ({ pixels: SCALE[path.split('/')[0]!] ?? 8 })),

  // Smooth colour: pictures whose subject is the shading itself (soft waves, glows, vignettes,
  // glossy highlights), where a tracer that flattens gradients into bands or one field loses the
  // picture while SSIM barely notices. Debian's desktop wallpapers (SVG, with blurs and
  // gradients), Ubuntu's Warty wallpaper (a bitmap gradient), glossy GNOME 2 icons (256 px
  // bitmaps, used as shipped) and one soft clip-art illustration.
  ...([
    ['softwaves', 'wallpaper/contents/images/1920x1080.svg', 'GPL-2+ (Juliette Taka)'],
    ['lines', 'login/background-nologo.svg', 'GPL-2+ (Juliette Taka)'],
    ['joy', 'wallpaper/contents/images/1920x1080.svg', 'GPL-2+ (Adrien Aubourg)'],
    ['emerald', 'wallpaper/contents/images/1920x1080.svg', 'GPL-2+ (Juliette Taka)'],
    ['futureprototype', 'wallpaper/contents/images/1920x1080.svg', 'GPL-2+ (Alex Makas)'],
  ] as const).map(([theme, path, license]): Spec => ({
    category: 'smooth', name: `desktop-base-${theme}`, deb: 'desktop-base', path: `/usr/share/desktop-base/${theme}-theme/${path}`, make: { svg: WALLPAPER }, license,
  })),
  { category: 'smooth', name: 'lomiri-warty-final-ubuntu', deb: 'lomiri-wallpapers', path: '/usr/share/backgrounds/warty-final-ubuntu.png', make: { fit: WALLPAPER } },
  ...['emotes/face-smile', 'devices/media-optical', 'categories/applications-internet'].map((path): Spec => ({
    category: 'smooth', name: `gnome-${path.split('/')[1]}`, deb: 'gnome-icon-theme', path: `/usr/share/icons/gnome/256x256/${path}.png`, make: { fit: ICON },
  })),
  ...clipart('smooth', ['recreation/party/balloons-aj.svg'], ILLUSTRATION),
];

const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, stdio: 'pipe' }).toString();

/** Fetches one Debian package (pinned version, else the mirror's) and unpacks only the files asked for. */
function debFiles(pkg: string, paths: string[]): { root: string; version: string } {
  mkdirSync(DEB_DIR, { recursive: true });
  const find = () => readdirSync(DEB_DIR).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
  if (!find()) {
    const pinned = `${pkg}=${DEBS[pkg]!.version}`;
    console.error(`build-set: apt-get download ${pinned}`);
    const attempts: Array<() => unknown> = [
      () => run('apt-get', ['download', pinned], DEB_DIR),
      () => (run('apt-get', ['update', '-qq'], DEB_DIR), run('apt-get', ['download', pinned], DEB_DIR)),
      () => run('apt-get', ['download', pkg], DEB_DIR), // the pinned version left the mirror
    ];
    for (const attempt of attempts) {
      try { attempt(); break; } catch (error) { if (attempt === attempts.at(-1)) throw error; }
    }
  }
  const deb = join(DEB_DIR, find()!);
  const version = run('dpkg-deb', ['-f', deb, 'Version'], DEB_DIR).trim();
  const root = join(DEB_DIR, pkg);
  const missing = [...new Set(paths)].filter((p) => !existsSync(join(root, p)));
  if (missing.length > 0) {
    mkdirSync(root, { recursive: true });
    // Only the members named: openclipart-svg alone unpacks to 170 MB.
    execFileSync('sh', ['-c', 'd=$0; r=$1; shift; dpkg-deb --fsys-tarfile "$d" | tar -x -C "$r" "$@"', deb, root, ...missing.map((p) => `.${p}`)], { stdio: 'inherit' });
  }
  return { root, version };
}

function npmPackage(pkg: string): { root: string; version: string; license: string } {
  const root = join(BENCH_DIR, 'node_modules', pkg);
  const json = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; license: string };
  return { root, version: json.version, license: json.license };
}

interface IconSet {
  width?: number;
  height?: number;
  icons: Record<string, { body: string; width?: number; height?: number; left?: number; top?: number }>;
}

function iconSvg(set: IconSet, icon: string): string {
  const i = set.icons[icon];
  if (!i) throw new Error(`icon ${icon} not in set`);
  const w = i.width ?? set.width ?? 16;
  const h = i.height ?? set.height ?? 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${i.left ?? 0} ${i.top ?? 0} ${w} ${h}" width="${w}" height="${h}">${i.body}</svg>`;
}

/** Rasterizes with the longest side at `size`; the background stays transparent. */
function svgToPng(svg: string, size: number): Buffer {
  // No system fonts: the picks draw no text, and renders must not depend on the machine's fonts.
  const font = { loadSystemFonts: false };
  const probe = new Resvg(svg, { font });
  const fitTo = probe.width >= probe.height ? { mode: 'width' as const, value: size } : { mode: 'height' as const, value: size };
  return new Resvg(svg, { font, fitTo }).render().asPng();
}

async function makePng(spec: Spec, file: string): Promise<{ png: Buffer; made: string }> {
  const m = spec.make;
  if ('svg' in m) {
    let svg: string;
    if (spec.path.startsWith('icons.json#')) {
      svg = iconSvg(JSON.parse(readFileSync(file, 'utf8')) as IconSet, spec.path.slice('icons.json#'.length));
    } else {
      svg = readFileSync(file, 'utf8');
    }
    if (spec.edit) svg = spec.edit(svg);
    return { png: svgToPng(svg, m.svg), made: `SVG rasterized by resvg, longest side ${m.svg} px${spec.edit ? ', edited (see build-set.ts)' : ''}` };
  }
  if ('fit' in m) {
    // Transparency, where there is any, is kept (sharp resamples premultiplied).
    const png = await sharp(file).resize(m.fit, m.fit, { fit: 'inside', withoutEnlargement: true }).toColourspace('srgb').png().toBuffer();
    return { png, made: `resized to fit ${m.fit} px (Lanczos; never enlarged)` };
  }
  let image = sharp(file);
  if (m.crop) {
    const [left, top, width, height] = m.crop;
    image = sharp(await image.extract({ left, top, width, height }).png().toBuffer());
  }
  const meta = await image.metadata();
  const png = await image.resize(meta.width * m.pixels, meta.height * m.pixels, { kernel: 'nearest' }).png().toBuffer();
  return { png, made: `${m.crop ? `crop ${m.crop.join(',')} (x,y,w,h), ` : ''}scaled ${m.pixels}x nearest neighbour` };
}

export async function buildSet(): Promise<ManifestEntry[]> {
  const started = performance.now();
  const byDeb = new Map<string, string[]>();
  for (const s of SPECS) if (s.deb) byDeb.set(s.deb, [...(byDeb.get(s.deb) ?? []), s.path]);
  const debs = new Map([...byDeb].map(([pkg, paths]) => [pkg, debFiles(pkg, paths)]));

  rmSync(IMAGES_DIR, { recursive: true, force: true });
  const manifest: ManifestEntry[] = [];
  for (const spec of SPECS) {
    let file: string;
    let source: ManifestEntry['source'];
    if (spec.npm) {
      const pkg = npmPackage(spec.npm);
      file = join(pkg.root, spec.path.split('#')[0]!);
      source = { registry: 'npm', package: spec.npm, version: pkg.version, path: spec.path, license: spec.license ?? pkg.license };
    } else {
      const deb = debs.get(spec.deb!)!;
      file = join(deb.root, spec.path);
      source = { registry: 'debian', package: spec.deb!, version: deb.version, path: spec.path, license: spec.license ?? DEBS[spec.deb!]!.license };
    }
    const { png, made } = await makePng(spec, file);
    const rel = `${spec.category}/${spec.name}.png`;
    mkdirSync(join(IMAGES_DIR, spec.category), { recursive: true });
    writeFileSync(join(IMAGES_DIR, rel), png);
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    let transparent = false;
    for (let i = 3; i < data.length; i += 4) if (data[i]! < 255) { transparent = true; break; }
    manifest.push({ category: spec.category, name: spec.name, file: rel, width: info.width, height: info.height, transparent, source, made });
  }
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  console.error(`build-set: ${manifest.length} images in ${((performance.now() - started) / 1000).toFixed(1)} s → ${IMAGES_DIR}`);
  return manifest;
}

/** The set on disk, built first when missing or made by an older list. */
export async function loadSet(): Promise<ManifestEntry[]> {
  if (existsSync(MANIFEST)) {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as ManifestEntry[];
    const names = new Set(manifest.map((m) => `${m.category}/${m.name}`));
    if (manifest.length === SPECS.length && SPECS.every((s) => names.has(`${s.category}/${s.name}`))) return manifest;
  }
  return buildSet();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--force')) rmSync(MANIFEST, { force: true });
  const manifest = await loadSet();
  for (const c of CATEGORIES) {
    const items = manifest.filter((m) => m.category === c);
    console.log(`${c}: ${items.length} images, ${items.filter((m) => m.transparent).length} with transparency`);
  }
}
