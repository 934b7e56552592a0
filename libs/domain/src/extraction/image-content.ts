import { filetypeinfo } from 'magic-bytes.js';

export const IMAGE_KINDS = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as const;
export type ImageExtension = keyof typeof IMAGE_KINDS;

/**
 * The image media type the file's first bytes say, when it is one we accept (JPEG, PNG,
 * WebP); null otherwise. Signatures are recognised by magic-bytes.js.
 */
export function imageMediaTypeOf(head: Uint8Array): string | null {
  const accepted = new Set<string>(Object.values(IMAGE_KINDS));
  for (const info of filetypeinfo(head)) {
    if (info.mime && accepted.has(info.mime)) return info.mime;
  }
  return null;
}

/** Whether the bytes are the image kind the file's extension names. */
export function imageMatchesExtension(extension: string, head: Uint8Array): boolean {
  const expected = IMAGE_KINDS[extension.toLowerCase() as ImageExtension];
  return expected !== undefined && imageMediaTypeOf(head) === expected;
}
