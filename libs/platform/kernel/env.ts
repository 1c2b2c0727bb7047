import { z } from 'zod';

/**
 * Environment-variable schemas shared by the platform's and the contexts' configuration
 * slices, so every variable is read the same way (blank means unset).
 */
export const envInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** A yes/no variable (true/false, 1/0, yes/no); unset or blank is `fallback`. */
export const envSwitch = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1' || v === 'yes'));

export const envFlag = envSwitch(false);

export const envOptional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
