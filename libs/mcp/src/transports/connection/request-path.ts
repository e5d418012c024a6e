/** The path of a request URL, without its query. */
export const pathOf = (url: string | undefined): string => {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  return query === -1 ? raw : raw.slice(0, query);
};

/** A path with one leading slash and no trailing one, so `/mcp/` and `mcp` match `/mcp`. */
export const normalizePath = (path: string): string => {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.length > 1 && withSlash.endsWith('/') ? withSlash.slice(0, -1) : withSlash;
};

/**
 * The path of `url` when it is one of `paths` (each a `normalizePath` result), else undefined. A
 * URL that is such a path exactly (as clients send it: no query, nothing to normalize) is matched
 * as it is, without a call.
 */
export const pathIn = (
  url: string | undefined,
  paths: ReadonlySet<string> | ReadonlyMap<string, unknown>,
): string | undefined => {
  if (url !== undefined && paths.has(url) && !url.includes('?')) return url;
  const path = normalizePath(pathOf(url));
  return paths.has(path) ? path : undefined;
};
