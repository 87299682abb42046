/*! evalbook's chart library: Apache ECharts (Apache-2.0, https://echarts.apache.org),
 * bundled with only the chart types, components and renderer that evalbook's
 * charts use. */
// The entry of evalbook's ECharts bundle. `make assets` bundles it with
// esbuild (both pinned in package.json and package-lock.json) into
// themes/assets/echarts.min.js, which go build embeds; nothing built is
// committed.
//
// ECharts' modular entry (echarts/core) draws nothing by itself: every
// series type, component and feature a chart option uses must be listed
// here. An unlisted series type is skipped without a word (the chart
// draws, empty), so TestChartBundleCoversDemo walks every chart option
// of the demo and fails on a type, component or feature not listed here,
// and on one listed that no chart uses (it would only weigh).
import { use, init, getInstanceByDom } from "echarts/core";
import { LineChart, ScatterChart, HeatmapChart } from "echarts/charts";
import {
  GridComponent,
  TitleComponent,
  TooltipComponent,
  LegendPlainComponent,
  VisualMapContinuousComponent,
} from "echarts/components";
import { LegacyGridContainLabel } from "echarts/features";
import { CanvasRenderer } from "echarts/renderers";

// modules: what the bundle registers, by the name ECharts exports it
// under (the test reads these names, here and in the built bundle).
const modules = {
  // series types
  LineChart, ScatterChart, HeatmapChart,
  // components
  GridComponent, TitleComponent, TooltipComponent, LegendPlainComponent, VisualMapContinuousComponent,
  // features: grid.containLabel as ECharts 5 laid it out
  LegacyGridContainLabel,
  // the renderer themes/static/site.js asks for
  CanvasRenderer,
};
use(Object.values(modules));

// What the site's script (and its browser tests) call.
window.echarts = { init, getInstanceByDom, modules: Object.keys(modules) };
