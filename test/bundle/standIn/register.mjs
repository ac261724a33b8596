// `node --import ./register.mjs <bundle>`: the built bundle's `electron` resolves to the stand-in beside
// this file instead of the npm package (which only names a binary), whether the bundle imports it as
// an ES module or requires it as CommonJS.
import Module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';

register('./hooks.mjs', import.meta.url);

const standIn = fileURLToPath(new URL('./electron.cjs', import.meta.url));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? standIn : resolveFilename.call(this, request, ...rest);
};
