export * from './tool-result.helpers.js';
