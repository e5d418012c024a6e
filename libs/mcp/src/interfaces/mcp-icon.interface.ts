/** An icon (MCP 2025-11-25). `src` is an https or `data:` URI. @publicApi */
export interface McpIcon {
  src: string;
  mimeType?: string;
  /** Each entry is `<width>x<height>` or `any`. */
  sizes?: string[];
  theme?: 'light' | 'dark';
}
