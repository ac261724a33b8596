// The README's layer table, between its markers, written from scripts/layers.mjs.
import { layerTable } from './layers.mjs';

const START = '<!-- layers: written by npm run docs from scripts/layers.mjs -->';
const END = '<!-- layers end -->';

/** The README with its layer table as the layer table says; the README must hold both markers. */
export function readmeWithLayers(readme: string): string {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`The README lacks its layer table's markers: ${START} … ${END}`);
  return `${readme.slice(0, from + START.length)}\n\n${layerTable()}\n\n${readme.slice(to)}`;
}
