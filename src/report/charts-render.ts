/** Renders a Vega-Lite specification to an SVG string in Node, headless (no canvas, no DOM, no network). */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { spec: vegaSpec } = compile(spec);
  // Specs carry their data inline and the report must never fetch: refuse every load, and fail rather than
  // draw a chart whose data could not be loaded.
  const refused: string[] = [];
  const loader = vega.loader();
  loader.load = (uri: string) => {
    refused.push(uri);
    return Promise.reject(new Error(`refused to load ${uri}`));
  };
  const view = new vega.View(vega.parse(vegaSpec), { renderer: 'none', loader });
  try {
    const svg = await view.toSVG();
    if (refused.length > 0) throw new Error(`chart refers to external resources (${refused.join(', ')}); embed the data instead`);
    return svg;
  } finally {
    view.finalize();
  }
}
