/** Nest injection tokens for what every host provides. */
export const LORE_CONFIG = 'lore:config';
export const TRANSPORT = 'lore:transport';
export const LOGGER = 'lore:logger';
