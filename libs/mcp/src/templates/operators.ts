/** The expression operators of RFC 6570 (section 2.2); `''` is simple string expansion. */
export type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

/**
 * How one operator expands (the table of RFC 6570 appendix A) and what its expansion may
 * contain when matched. Expansion and matching read the same table, so what `expand` writes
 * is what `match` reads back.
 */
export interface OperatorSpec {
  /** Written before the first defined value (`first`). */
  readonly first: string;
  /** Between values (`sep`). */
  readonly sep: string;
  /** Values are written as `name=value` (`named`). */
  readonly named: boolean;
  /** Written after the name of an empty value (`ifemp`). */
  readonly ifemp: string;
  /** Reserved characters are kept rather than percent-encoded (`allow` is U+R). */
  readonly allowReserved: boolean;
  /**
   * Characters a matched expansion never contains raw, so an expression ends at the first of
   * them. They follow RFC 3986: `/` ends a segment, `?` starts the query, `#` the fragment.
   */
  readonly stops: string;
}

/** Every operator's {@link OperatorSpec}. */
export const OPERATORS: Readonly<Record<Operator, OperatorSpec>> = {
  '': { first: '', sep: ',', named: false, ifemp: '', allowReserved: false, stops: '/?#' },
  '+': { first: '', sep: ',', named: false, ifemp: '', allowReserved: true, stops: '?#' },
  '#': { first: '#', sep: ',', named: false, ifemp: '', allowReserved: true, stops: '' },
  '.': { first: '.', sep: '.', named: false, ifemp: '', allowReserved: false, stops: '/?#' },
  '/': { first: '/', sep: '/', named: false, ifemp: '', allowReserved: false, stops: '?#' },
  ';': { first: ';', sep: ';', named: true, ifemp: '', allowReserved: false, stops: '/?#' },
  '?': { first: '?', sep: '&', named: true, ifemp: '=', allowReserved: false, stops: '#' },
  '&': { first: '&', sep: '&', named: true, ifemp: '=', allowReserved: false, stops: '#' },
};
