import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'naive-upload.mjs');

export type UploadClient = 'node:http' | 'fetch';

/** One attempt: the answer, or the error code the client failed with. */
export type UploadOutcome = { status: number; json: unknown } | { error: string };

export interface UploadPlan {
  client: UploadClient;
  url: string;
  headers: Record<string, string>;
  /** `Transfer-Encoding: chunked` instead of a declared `Content-Length`. */
  chunked: boolean;
  bodyBytes: number;
  /** Attempts, made one after the other. */
  count: number;
}

/**
 * Runs the uploads of `naive-upload.mjs` (ordinary clients, in a process of their own) and
 * returns each attempt's outcome in order.
 */
export function naiveUploads(plan: UploadPlan, timeoutMs = 60_000): Promise<UploadOutcome[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SCRIPT, JSON.stringify(plan)],
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`naive-upload.mjs failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as UploadOutcome[]);
      },
    );
  });
}
