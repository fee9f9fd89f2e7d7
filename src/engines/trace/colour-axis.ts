/** The main axis of a set of colours (power iteration on their scatter about the mean), unit length. */
export function mainAxis(colours: Float32Array, n: number): number[] {
  const mean = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) mean[c]! += colours[i * 3 + c]!;
  for (let c = 0; c < 3; c++) mean[c]! /= n;
  const cov = new Float64Array(9);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) for (let b = a; b < 3; b++) cov[a * 3 + b]! += (colours[i * 3 + a]! - mean[a]!) * (colours[i * 3 + b]! - mean[b]!);
  }
  cov[3] = cov[1]!;
  cov[6] = cov[2]!;
  cov[7] = cov[5]!;
  let axis = [0.58, 0.58, 0.58];
  for (let iteration = 0; iteration < 16; iteration++) {
    const next = [0, 1, 2].map((r) => cov[r * 3]! * axis[0]! + cov[r * 3 + 1]! * axis[1]! + cov[r * 3 + 2]! * axis[2]!);
    const length = Math.hypot(...next);
    if (!(length > 0)) break;
    axis = next.map((v) => v / length);
  }
  return axis;
}
