const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Spec section 8: 1 to 128 characters of `A-Z a-z 0-9 _ - .`, case-sensitive. */
export const isValidToolName = (name: unknown): name is string => typeof name === 'string' && TOOL_NAME.test(name);
