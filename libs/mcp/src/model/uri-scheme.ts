const URI_WITH_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/;

/** An absolute URI: an RFC 3986 scheme, then anything without whitespace. */
export const hasUriScheme = (uri: unknown): uri is string => typeof uri === 'string' && URI_WITH_SCHEME.test(uri);
