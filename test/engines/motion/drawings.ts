// Hand-written drawings the animator's tests use: line art, a few solid shapes, wheels.

/** Line art: a house outline, strokes without fill. */
export const LINE_ART = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<g fill="none" stroke="#222" stroke-width="3" stroke-linecap="round" stroke-linejoin="round">
<path d="M20 50 L50 22 L80 50"/>
<path d="M28 44 V80 H72 V44"/>
<rect x="44" y="58" width="12" height="22"/>
<circle cx="62" cy="52" r="5"/>
</g></svg>`;

/** A heart outline and a heart named "heart", for prompts that name parts. */
export const HEART = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 100">
<rect id="frame" x="6" y="6" width="108" height="88" rx="8" fill="none" stroke="#333" stroke-width="2"/>
<path id="heart" d="M60 78 C20 52 28 22 48 26 C56 28 60 36 60 38 C60 36 64 28 72 26 C92 22 100 52 60 78 Z" fill="#e0245e"/>
</svg>`;

/** A few solid shapes. */
export const SHAPES = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 120">
<rect x="20" y="40" width="40" height="40" fill="#f4a261"/>
<circle cx="100" cy="60" r="22" fill="#2a9d8f"/>
<polygon points="150,38 176,82 124,82" fill="#e76f51"/>
</svg>`;

/** A single solid shape. */
export const BLOB = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><circle cx="50" cy="50" r="30" fill="#3a86ff"/></svg>`;

/** A wheel: rim, hub and six spokes. */
export const WHEEL = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<circle cx="50" cy="50" r="38" fill="none" stroke="#333" stroke-width="6"/>
<circle cx="50" cy="50" r="6" fill="#333"/>
<g stroke="#333" stroke-width="3">
<line x1="50" y1="50" x2="50" y2="12"/><line x1="50" y1="50" x2="82.9" y2="31"/><line x1="50" y1="50" x2="82.9" y2="69"/>
<line x1="50" y1="50" x2="50" y2="88"/><line x1="50" y1="50" x2="17.1" y2="69"/><line x1="50" y1="50" x2="17.1" y2="31"/>
</g></svg>`;

/** A cart: a solid body and two wheels with four spokes each (the wheels are drawn with <use>). */
export const CART = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 100">
<defs><g id="w"><circle r="14" fill="#ddd" stroke="#222" stroke-width="3"/><path d="M-14 0H14M0 -14V14" stroke="#222" stroke-width="2"/></g></defs>
<rect x="20" y="30" width="120" height="36" rx="4" fill="#c1121f"/>
<g id="wheel-left" transform="translate(45 72)"><circle r="14" fill="#ddd" stroke="#222" stroke-width="3"/><path d="M-14 0H14M0 -14V14" stroke="#222" stroke-width="2"/></g>
<g id="wheel-right" transform="translate(115 72)"><circle r="14" fill="#ddd" stroke="#222" stroke-width="3"/><path d="M-14 0H14M0 -14V14" stroke="#222" stroke-width="2"/></g>
</svg>`;

/** A gear: one path with eight teeth. */
export const GEAR = (() => {
  const teeth = 8;
  const points: string[] = [];
  for (let i = 0; i < teeth * 4; i++) {
    const angle = (i / (teeth * 4)) * Math.PI * 2;
    const r = i % 4 < 2 ? 40 : 32;
    points.push(`${(50 + r * Math.cos(angle)).toFixed(3)},${(50 + r * Math.sin(angle)).toFixed(3)}`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><polygon points="${points.join(' ')}" fill="#6c757d"/><circle cx="50" cy="50" r="10" fill="#fff"/></svg>`;
})();

/** Busy: thirty small squares in a grid, filling the viewBox. */
export const BUSY = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 50">${Array.from({ length: 30 }, (_, i) => `<rect x="${(i % 6) * 10 + 1}" y="${Math.floor(i / 6) * 10 + 1}" width="8" height="8" fill="hsl(${i * 12},70%,50%)"/>`).join('')}</svg>`;

/** A ball with room above it to bounce, a name to be found by, and a shadow that stays put. */
export const BALL = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<ellipse cx="50" cy="94" rx="16" ry="3" fill="#cbd5e1"/>
<g id="ball"><circle cx="50" cy="74" r="16" fill="#ef476f"/><path d="M36 68 Q50 58 64 68" fill="none" stroke="#fff" stroke-width="2"/></g>
</svg>`;

/** One demo per motion: the drawing and a prompt that asks for it. */
export const MOTION_CASES: { motion: string; drawing: string; prompt: string }[] = [
  { motion: 'draw', drawing: LINE_ART, prompt: 'draw it' },
  { motion: 'fade', drawing: SHAPES, prompt: 'fade in' },
  { motion: 'pop', drawing: SHAPES, prompt: 'pop in' },
  { motion: 'slide', drawing: SHAPES, prompt: 'slide in from the left' },
  { motion: 'stagger', drawing: SHAPES, prompt: 'bring the shapes in one by one' },
  { motion: 'pulse', drawing: HEART, prompt: 'pulse the heart' },
  { motion: 'spin', drawing: WHEEL, prompt: 'spin the wheel' },
  { motion: 'bounce', drawing: BALL, prompt: 'bounce the ball' },
  { motion: 'float', drawing: BLOB, prompt: 'float' },
  { motion: 'wiggle', drawing: SHAPES, prompt: 'wiggle' },
  { motion: 'shake', drawing: SHAPES, prompt: 'shake' },
  { motion: 'colour', drawing: SHAPES, prompt: 'colour shift' },
];
