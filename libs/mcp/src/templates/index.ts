export type { UriVariables } from './match-captures.js';
export { compileUriTemplate, UriTemplate } from './uri-template.js';
export { UriTemplateError } from './uri-template.error.js';
export { assertUriLength, isUriTooLong, MAX_URI_LENGTH } from './uri-length.js';
