// Hand-written CSS and SMIL animations shared by the animation tests.

export const svg = (body: string, viewBox = '0 0 100 100') => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${viewBox}">${body}</svg>`;

export const CASES: Record<string, { svg: string; times: number[] }> = {
  'CSS translate, linear, infinite': {
    svg: svg('<style>@keyframes slide{from{transform:translateX(0)}to{transform:translateX(60px)}} .a{animation:slide 2s linear infinite}</style><rect class="a" x="5" y="30" width="30" height="30" fill="#e63946"/>'),
    times: [0, 500, 1000, 1500, 2500],
  },
  'CSS rotate about fill-box centre, ease-in-out, alternate': {
    svg: svg('<style>@keyframes spin{to{transform:rotate(90deg)}} #w{animation:spin 1s ease-in-out infinite alternate;transform-box:fill-box;transform-origin:center}</style><rect id="w" x="25" y="40" width="50" height="20" fill="#1d3557"/>'),
    times: [0, 250, 500, 1000, 1250, 1750],
  },
  'CSS scale pop with delay, fill both, cubic-bezier': {
    svg: svg('<style>@keyframes pop{0%{transform:scale(0.2);opacity:0}60%{transform:scale(1.1);opacity:1}100%{transform:scale(1)}} circle{animation:pop 800ms cubic-bezier(.3,1.4,.6,1) 200ms both;transform-origin:50px 50px}</style><circle cx="50" cy="50" r="30" fill="#2a9d8f"/>'),
    times: [0, 200, 400, 600, 900, 1500],
  },
  'CSS draw-on with pathLength and dash offset': {
    svg: svg('<style>@keyframes draw{from{stroke-dashoffset:1}to{stroke-dashoffset:0}} path{stroke-dasharray:1;animation:draw 1.5s linear forwards}</style><path pathLength="1" d="M10 80 C 30 10, 70 10, 90 80" fill="none" stroke="#264653" stroke-width="6"/>'),
    times: [0, 300, 750, 1200, 2000],
  },
  'CSS colour shift and per-keyframe timing, steps': {
    svg: svg('<style>@keyframes hue{0%{fill:#ff0000;animation-timing-function:linear}50%{fill:#0000ff}100%{fill:#00ff00}} @keyframes blink{to{opacity:.2}} rect{animation:hue 2s infinite, blink 1s steps(4) infinite}</style><rect x="10" y="10" width="80" height="80"/>'),
    times: [0, 300, 600, 1000, 1400, 1900],
  },
  'CSS inside prefers-reduced-motion media query, skew and translate percent': {
    svg: svg('<style>@media (prefers-reduced-motion: no-preference){ .s{animation:sk 1s linear infinite} } @media (prefers-reduced-motion: reduce){ .s{animation:none} } @keyframes sk{50%{transform:skewX(20deg) translate(10%,0)}} .s{transform-box:fill-box}</style><g class="s"><rect x="20" y="20" width="60" height="60" fill="#f4a261"/></g>'),
    times: [0, 250, 500, 750],
  },
  'SMIL animate x and fill colour, discrete and linear with keyTimes': {
    svg: svg('<rect x="0" y="20" width="20" height="20" fill="red"><animate attributeName="x" values="0;60;20" keyTimes="0;0.7;1" dur="2s" repeatCount="indefinite"/><animate attributeName="fill" values="red;blue;green" dur="1.5s" calcMode="discrete" repeatCount="indefinite"/></rect>'),
    times: [0, 400, 700, 1400, 1800, 2100],
  },
  'SMIL animateTransform rotate with centre, begin offset, freeze': {
    svg: svg('<g><rect x="30" y="45" width="40" height="10" fill="#6a4c93"><animateTransform attributeName="transform" type="rotate" from="0 50 50" to="180 50 50" begin="0.5s" dur="1s" fill="freeze"/></rect></g>'),
    times: [0, 600, 1000, 1400, 2000],
  },
  'SMIL additive scale over translate, keySplines, opacity': {
    svg: svg('<circle cx="0" cy="0" r="20" fill="#ffb703" transform="translate(50 50)"><animateTransform attributeName="transform" type="scale" values="1;1.5;1" keyTimes="0;0.5;1" calcMode="spline" keySplines="0.4 0 0.2 1;0.4 0 0.2 1" dur="1s" additive="sum" repeatCount="indefinite"/><animate attributeName="opacity" from="1" to="0.3" dur="2s" repeatCount="indefinite"/></circle>'),
    times: [0, 250, 500, 800, 1300],
  },
  'SMIL syncbase chain that loops, set, stroke-dashoffset': {
    svg: svg('<line x1="10" y1="50" x2="90" y2="50" stroke="#023047" stroke-width="8" stroke-dasharray="80" stroke-dashoffset="80"><animate id="a" attributeName="stroke-dashoffset" from="80" to="0" begin="0s;b.end" dur="1s" fill="freeze"/><animate id="b" attributeName="stroke-dashoffset" from="0" to="80" begin="a.end+0.5s" dur="1s" fill="freeze"/></line><circle cx="50" cy="20" r="8" fill="#fb8500" visibility="hidden"><set attributeName="visibility" to="visible" begin="1s"/></circle>'),
    times: [0, 500, 1200, 1800, 2700, 3100],
  },
  'SMIL animateMotion along a path with rotate auto': {
    svg: svg('<path id="track" d="M10 50 Q 50 0 90 50" fill="none" stroke="#ccc"/><rect x="-6" y="-4" width="12" height="8" fill="#d62828"><animateMotion dur="2s" repeatCount="indefinite" rotate="auto"><mpath href="#track"/></animateMotion></rect>'),
    times: [0, 500, 1000, 1500],
  },
  'CSS transform lists of different kinds (matrix decomposition), nth-child, currentColor and var()': {
    svg: svg('<style>:root{--ink:#2b2d42} @keyframes twist{from{transform:translate(20px,10px) rotate(10deg)}to{transform:scale(1.4) skewY(10deg)}} g rect:nth-child(2){animation:twist 2s linear infinite;color:var(--ink);fill:currentColor}</style><g><rect x="10" y="10" width="20" height="20" fill="#ccc"/><rect x="30" y="30" width="30" height="20"/></g>'),
    times: [0, 400, 1000, 1600],
  },
  'SMIL to-animation, by-animation and accumulate': {
    svg: svg('<rect x="10" y="10" width="20" height="20" fill="#3a86ff"><animate attributeName="width" to="60" dur="2s" fill="freeze"/><animate attributeName="y" by="15" dur="1s" accumulate="sum" repeatCount="3" fill="freeze"/></rect>'),
    times: [0, 500, 1500, 2500, 3500],
  },
};
