import { useRef, useState, type DragEvent } from 'react';
import type { Content } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Progress } from '../../ui/Progress';
import { uploadFile } from './upload';

interface Upload {
  readonly key: string;
  readonly name: string;
  readonly sent: number;
  readonly total: number;
  readonly error: unknown;
  readonly abort: () => void;
}

/** The formats Lore extracts text from (README "Knowledge"). */
const ACCEPT = '.txt,.md,.markdown,.html,.htm,.json,.csv,.pdf,.docx';

/**
 * Files dropped here (or chosen with the button, for keyboard users) are uploaded one request
 * each, in parallel, each with its progress bar; once Lore has them, `onUploaded` hands the new
 * content to the list, where its processing status follows live.
 */
export function UploadZone({ collectionId, onUploaded }: { collectionId: string; onUploaded: (content: Content) => void }) {
  const { session } = useLore();
  const [uploads, setUploads] = useState<readonly Upload[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const change = (key: string, patch: Partial<Upload>) => setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...patch } : u)));
  const start = (files: readonly File[]) => {
    for (const file of files) {
      const key = `${file.name}-${Math.random().toString(36).slice(2)}`;
      const { done, abort } = uploadFile(session, collectionId, file, (sent, total) => change(key, { sent, total }));
      setUploads((all) => [...all, { key, name: file.name, sent: 0, total: file.size, error: null, abort }]);
      done.then(
        (content) => {
          setUploads((all) => all.filter((u) => u.key !== key));
          onUploaded(content);
        },
        (error: unknown) => change(key, { error }),
      );
    }
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    start([...event.dataTransfer.files]);
  };

  return (
    <section aria-labelledby="upload-title" className="stack">
      <h2 id="upload-title">Upload files</h2>
      <div
        className={over ? 'dropzone over' : 'dropzone'}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
        data-testid="dropzone"
      >
        <p>Drop files here (txt, md, html, json, csv, pdf, docx), or</p>
        <button type="button" onClick={() => input.current?.click()}>
          Choose files…
        </button>
        <input
          ref={input}
          type="file"
          multiple
          accept={ACCEPT}
          hidden
          aria-label="Files to upload"
          onChange={(event) => {
            start([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
      </div>
      {uploads.length === 0 ? null : (
        <ul className="uploads" aria-label="Uploads in progress">
          {uploads.map((upload) => (
            <li key={upload.key}>
              {upload.error === null ? (
                <div className="row">
                  <Progress label={`Uploading ${upload.name}`} value={upload.sent} max={Math.max(upload.total, 1)} />
                  <button type="button" onClick={upload.abort} aria-label={`Cancel the upload of ${upload.name}`}>
                    Cancel
                  </button>
                </div>
              ) : (
                <ErrorBanner error={upload.error} onDismiss={() => setUploads((all) => all.filter((u) => u.key !== upload.key))} />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
