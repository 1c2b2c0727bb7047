import { unwrap, type LoreHttp } from '../core/http';
import type { QueryOf, ReplyOf } from '../core/types';

export type AuditVerifyReport = ReplyOf<'verify_audit_chain'>;

/** Tamper evidence for the workspace (`/api/v1/admin/audit/verify`; administrators only). */
export class Audit {
  constructor(private readonly http: LoreHttp) {}

  /**
   * One reply of the verify: the hash chains of the workspace's streams, per context. When
   * `truncated`, pass its `next_cursor` as `cursor` to go on.
   */
  verify(query: QueryOf<'verify_audit_chain'> = {}): Promise<AuditVerifyReport> {
    return unwrap(this.http.api.GET('/api/v1/admin/audit/verify', { params: { query } }));
  }
}
