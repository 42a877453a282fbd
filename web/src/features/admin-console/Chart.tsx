// One ECharts chart. ECharts is imported on first use (its own chunk, outside the entry and the page's chunk), and
// only the chart kinds and components the statistics draw are registered, to keep that chunk small.
import { useEffect, useRef } from 'react';
import type * as EchartsCore from 'echarts/core';

type Echarts = typeof EchartsCore;
let loading: Promise<Echarts> | undefined;

function loadEcharts(): Promise<Echarts> {
  loading ??= Promise.all([import('echarts/core'), import('echarts/charts'), import('echarts/components'), import('echarts/renderers')]).then(
    ([core, charts, components, renderers]) => {
      core.use([charts.BarChart, charts.LineChart, charts.PieChart, components.GridComponent, components.TooltipComponent, components.LegendComponent, renderers.CanvasRenderer]);
      return core;
    },
  );
  return loading;
}

export default function Chart({ option, height = 280, testId }: { option: Record<string, unknown>; height?: number; testId?: string }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let chart: ReturnType<Echarts['init']> | undefined;
    let gone = false;
    const resize = () => chart?.resize();
    void loadEcharts().then((echarts) => {
      if (gone || !el.current) return;
      chart = echarts.init(el.current);
      chart.setOption(option);
      window.addEventListener('resize', resize);
    });
    return () => {
      gone = true;
      window.removeEventListener('resize', resize);
      chart?.dispose();
    };
  }, [option]);
  return <div ref={el} style={{ width: '100%', height }} data-testid={testId} />;
}
