/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line:
 * a longer line is reported once as too long and skipped up to its newline.
 */
export class LineSplitter {
  private chunks: Buffer[] = [];
  private length = 0;
  private discarding = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLong: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.flush();
      start = newline + 1;
    }
  }

  /** Emits a last line that had no trailing newline. */
  end(): void {
    if (this.length > 0 && !this.discarding) this.flush();
    this.reset();
  }

  private take(part: Buffer): void {
    if (this.discarding || part.length === 0) return;
    if (this.length + part.length > this.maxLineBytes) {
      this.reset();
      this.discarding = true;
      this.onTooLong();
      return;
    }
    this.chunks.push(part);
    this.length += part.length;
  }

  private flush(): void {
    if (!this.discarding) {
      let line = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.length);
      if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
      if (line.length > 0) this.onLine(line);
    }
    this.reset();
  }

  private reset(): void {
    this.chunks = [];
    this.length = 0;
    this.discarding = false;
  }
}
