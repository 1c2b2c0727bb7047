import type { Content, LoreClient } from '@lore/client';

/** Saves a content's kept original under its file name (the SDK fetches it with the session's token). */
export async function downloadOriginal(lore: LoreClient, content: Content): Promise<void> {
  if (content.original === null) return;
  const bytes = await lore.contents.download(content.id);
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: content.original.content_type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = content.original.file_name;
  link.click();
  // After the click has handed the blob to the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
