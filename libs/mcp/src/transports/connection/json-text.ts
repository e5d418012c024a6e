export { decodeJsonBody as decodeJsonText } from '../http/body-reader.js';
