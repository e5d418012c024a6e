/**
 * class-transformer 0.5 ships no typings next to its CommonJS entry points, and it exports its
 * metadata storage only from a deep path; this gives that path the types it already has.
 */
declare module 'class-transformer/cjs/storage.js' {
  import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';

  export const defaultMetadataStorage: MetadataStorage;
}
