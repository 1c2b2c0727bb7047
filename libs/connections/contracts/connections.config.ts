import { z } from 'zod';

/** The connections context's settings, from the environment (README, Configuration); none yet beyond the defaults. */
export const connectionsConfig = z.object({});
export type ConnectionsConfig = z.output<typeof connectionsConfig>;
