import { z } from 'zod';

/**
 * Environment-variable schemas shared by the platform's and the contexts' configuration
 * slices, so every variable is read the same way (blank means unset).
 */
export const envInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const envFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const envOptional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
