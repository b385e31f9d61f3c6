/** Fields several messages share: a session reference, the reply pairing `req`, a terminal's size. */
import { z } from 'zod';

export const sessionRef = z.string().min(1).max(128);
export const req = z.number().int().nonnegative().optional();
const dimension = (max: number): z.ZodNumber => z.number().int().min(1).max(max);
export const cols = dimension(1000);
export const rows = dimension(500);
