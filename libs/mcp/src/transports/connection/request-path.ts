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
