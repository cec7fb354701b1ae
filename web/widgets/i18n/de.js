// The de message table as its own module: the bundle loads it on demand (kit/i18n.js loadLocale), as a chunk.
export { default } from './de/index.js';
