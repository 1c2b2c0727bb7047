import { LoreApiError, type Content } from '@lore/client';
import type { Session } from '../../app/session';

/**
 * Uploads a file as a content (`POST /api/v1/contents`, multipart), reporting the bytes sent.
 * XMLHttpRequest rather than the SDK's fetch: only it reports upload progress in every browser
 * (fetch upload streams need HTTP/2 or more). Errors are the SDK's LoreApiError with the API's
 * detail, like every other call of the console.
 */
export function uploadFile(session: Session, collectionId: string, file: File, onProgress: (sent: number, total: number) => void): { done: Promise<Content>; abort: () => void } {
  const request = new XMLHttpRequest();
  const done = new Promise<Content>((resolve, reject) => {
    const form = new FormData();
    form.set('collection_id', collectionId);
    form.set('file', file, file.name);
    request.open('POST', `${window.location.origin}/api/v1/contents`);
    request.setRequestHeader('authorization', `Bearer ${session.token}`);
    if (session.workspaceId !== undefined) request.setRequestHeader('x-workspace-id', session.workspaceId);
    request.responseType = 'text';
    request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) resolve(JSON.parse(request.responseText) as Content);
      else reject(apiError(request));
    };
    request.onerror = () => reject(new Error(`The upload of ${file.name} failed: the network connection was lost`));
    request.onabort = () => reject(new Error(`The upload of ${file.name} was cancelled`));
    request.send(form);
  });
  return { done, abort: () => request.abort() };
}

function apiError(request: XMLHttpRequest): LoreApiError {
  let detail: LoreApiError['detail'] = request.statusText || `HTTP ${request.status}`;
  try {
    const body = JSON.parse(request.responseText) as { detail?: LoreApiError['detail'] };
    if (body.detail !== undefined) detail = body.detail;
  } catch {
    // not JSON: a proxy's page; its status text stands
  }
  const retryAfter = Number(request.getResponseHeader('retry-after'));
  return new LoreApiError(request.status, detail, request.getResponseHeader('x-request-id') ?? undefined, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}
