import { inflateRawSync } from 'node:zlib';

import { invalid } from '@lore/platform/kernel';

import { FILE_FIELD } from './file-format';
import { limitExceeded, type ExtractionLimits } from './extraction-limits';

/** Entries at most this large are not held to the ratio: tiny files of repeated bytes compress absurdly and harmlessly. */
export const ZIP_RATIO_FLOOR_BYTES = 1024 * 1024;

const EOCD = 0x06054b50; // end of central directory record
const CENTRAL = 0x02014b50; // central directory file header
const LOCAL = 0x04034b50; // local file header
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localHeaderOffset: number;
}

/**
 * Refuses a ZIP (a DOCX) whose entries would expand beyond the limits, before mammoth (through
 * JSZip) inflates any of it. The central directory at the end of the file declares every
 * entry's sizes without decompressing anything, so a 277 KB file that expands to 100 MB is
 * refused after reading a few kilobytes. The declared sizes may lie, and JSZip only notices
 * after inflating everything; so each deflated entry is then inflated by zlib with its output
 * capped at the declared size (native, and bounded by the total limit), and a liar is refused.
 * ZIP64 is not read: its markers (0xFFFF entries, 0xFFFFFFFF sizes) already exceed the limits.
 */
export function checkZip(bytes: Uint8Array, limits: ExtractionLimits, filename: string): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(buffer, limits, filename);
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    if (total > limits.maxUnzippedBytes) {
      throw limitExceeded(filename, `expands to more than ${limits.maxUnzippedBytes} bytes when unzipped`, 'maxUnzippedBytes');
    }
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (entry.uncompressedSize > ZIP_RATIO_FLOOR_BYTES && ratio > limits.maxZipRatio) {
      throw limitExceeded(filename, `has an entry compressed more than ${limits.maxZipRatio} times (${entry.name})`, 'maxZipRatio');
    }
  }
  for (const entry of entries) verifySize(buffer, entry, filename);
}

function centralDirectory(buffer: Buffer, limits: ExtractionLimits, filename: string): ZipEntry[] {
  const end = findEndRecord(buffer);
  if (end === -1) throw corrupt(filename, 'no end of central directory');
  const declared = buffer.readUInt16LE(end + 10);
  if (declared > limits.maxZipEntries) {
    throw limitExceeded(filename, `holds more than ${limits.maxZipEntries} ZIP entries`, 'maxZipEntries');
  }
  const entries: ZipEntry[] = [];
  let at = buffer.readUInt32LE(end + 16);
  // Walked to the end record rather than trusting the declared count.
  while (at + 46 <= end && buffer.readUInt32LE(at) === CENTRAL) {
    if (entries.length >= limits.maxZipEntries) {
      throw limitExceeded(filename, `holds more than ${limits.maxZipEntries} ZIP entries`, 'maxZipEntries');
    }
    const nameLength = buffer.readUInt16LE(at + 28);
    entries.push({
      method: buffer.readUInt16LE(at + 10),
      compressedSize: buffer.readUInt32LE(at + 20),
      uncompressedSize: buffer.readUInt32LE(at + 24),
      localHeaderOffset: buffer.readUInt32LE(at + 42),
      name: buffer.toString('utf8', at + 46, Math.min(at + 46 + nameLength, end)),
    });
    at += 46 + nameLength + buffer.readUInt16LE(at + 30) + buffer.readUInt16LE(at + 32);
  }
  if (entries.length === 0) throw corrupt(filename, 'an empty or unreadable central directory');
  return entries;
}

/** The end record sits in the last 22 bytes plus at most a 64 KiB comment; searched backwards. */
function findEndRecord(buffer: Buffer): number {
  const lowest = Math.max(0, buffer.length - EOCD_SIZE - MAX_COMMENT);
  for (let at = buffer.length - EOCD_SIZE; at >= lowest; at--) {
    if (buffer.readUInt32LE(at) === EOCD) return at;
  }
  return -1;
}

function verifySize(buffer: Buffer, entry: ZipEntry, filename: string): void {
  if (entry.method !== 8) return; // stored entries are their own size; other methods JSZip refuses itself
  const local = entry.localHeaderOffset;
  if (local + 30 > buffer.length || buffer.readUInt32LE(local) !== LOCAL) throw corrupt(filename, `a missing local header for ${entry.name}`);
  const start = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
  const data = buffer.subarray(start, start + entry.compressedSize);
  let inflated: number;
  try {
    // One byte more than declared may come out, so that a larger stream shows itself.
    inflated = inflateRawSync(data, { maxOutputLength: entry.uncompressedSize + 1 }).length;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') inflated = entry.uncompressedSize + 1;
    else throw corrupt(filename, `${entry.name} does not inflate`);
  }
  if (inflated !== entry.uncompressedSize) {
    throw invalid(FILE_FIELD, `"${filename}" could not be read as a DOCX document: ${entry.name} expands to a size other than its ZIP directory declares`);
  }
}

function corrupt(filename: string, what: string): ReturnType<typeof invalid> {
  return invalid(FILE_FIELD, `"${filename}" could not be read as a DOCX document (it is corrupt or not a Word file): ${what}`);
}
