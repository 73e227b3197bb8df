/** A figure of the report: a Vega-Lite chart, or the sentence that says why it cannot be drawn. */
import type { TopLevelSpec } from 'vega-lite';

export interface ChartFigure {
  kind: 'chart';
  /** `fig4` … `fig11`, also the HTML anchor. */
  id: string;
  title: string;
  caption: string;
  spec: TopLevelSpec;
}

export interface MissingFigure {
  kind: 'missing';
  id: string;
  title: string;
  /** One sentence: why the figure cannot be drawn from this data. */
  reason: string;
}

export type Figure = ChartFigure | MissingFigure;

/** Shared look: readable sizes, white background (the SVG is embedded as is). */
const CONFIG = {
  background: 'white',
  font: 'Helvetica, Arial, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12 },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 320 },
  title: { fontSize: 13 },
  view: { stroke: null },
} as const;

export function chart(id: string, title: string, caption: string, spec: Record<string, unknown>): ChartFigure {
  return { kind: 'chart', id, title, caption, spec: { config: CONFIG, ...spec } as TopLevelSpec };
}

export function missing(id: string, title: string, reason: string): MissingFigure {
  return { kind: 'missing', id, title, reason };
}
