import type { ApiKeyPrincipal } from '@lore/keys/contracts';

/** Who is calling, as proven by the bearer credential. */
export type Caller =
  | {
      readonly kind: 'user';
      readonly userId: string;
      /** The token's `workspace_id` claim: the workspace used when X-Workspace-Id is absent. */
      readonly defaultWorkspace: string | undefined;
      /** Every workspace the token may use: `workspace_id` plus the `workspaces` claim. */
      readonly workspaces: ReadonlySet<string>;
    }
  | ({ readonly kind: 'api_key' } & ApiKeyPrincipal);

/** A caller bound to the workspace a request acts in. */
export interface RequestScope {
  readonly caller: Caller;
  readonly workspaceId: string;
  /** `user:<sub>` or `api_key:<id>`, recorded with every event. */
  readonly actor: string;
  readonly requestId: string;
}
