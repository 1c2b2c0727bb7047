import { z } from 'zod';
import { IntegrationRecord } from '@lore/connections/contracts';
import analytics from './entries/analytics.json';
import communication from './entries/communication.json';
import crm from './entries/crm.json';
import custom from './entries/custom.json';
import databases from './entries/databases.json';
import developerTools from './entries/developer-tools.json';
import finance from './entries/finance.json';
import marketing from './entries/marketing.json';
import mcp from './entries/mcp.json';
import modelProviders from './entries/model-providers.json';
import productivity from './entries/productivity.json';
import storage from './entries/storage.json';
import support from './entries/support.json';
import vectorStores from './entries/vector-stores.json';

/**
 * Lore's integration catalog, one file per category, bundled with the service. The entries'
 * JSON Schema (integration-entry.schema.json) is checked by catalog.unit.spec.ts; parsing here
 * with the record schema keeps the served shape honest too.
 */
export const CATALOG: readonly IntegrationRecord[] = z
  .array(IntegrationRecord)
  .parse([analytics, communication, crm, custom, databases, developerTools, finance, marketing, mcp, modelProviders, productivity, storage, support, vectorStores].flat())
  .sort((a, b) => a.name.localeCompare(b.name));

/** The entry a connection names: by id, or by name ignoring case (SPEC §2.3 calls the field "integration name"). */
export function findIntegration(idOrName: string, catalog: readonly IntegrationRecord[] = CATALOG): IntegrationRecord | undefined {
  const wanted = idOrName.trim().toLowerCase();
  return catalog.find((entry) => entry.id === wanted) ?? catalog.find((entry) => entry.name.toLowerCase() === wanted);
}
