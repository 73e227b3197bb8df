/** Renders a Vega-Lite specification to an SVG string in Node, headless (no canvas, no DOM, no network). */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { spec: vegaSpec } = compile(spec);
  // A loader that refuses everything: specs carry their data inline, and the report must never fetch.
  const loader = vega.loader();
  loader.load = () => Promise.reject(new Error('the report renderer loads no external resources'));
  const view = new vega.View(vega.parse(vegaSpec), { renderer: 'none', loader });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
