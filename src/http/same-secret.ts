import { timingSafeEqual } from 'node:crypto';

/** Whether two secrets are equal, compared in the same time whatever their content (not their length). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
