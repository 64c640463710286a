// The overview's chart: per minute, stacked bars of delivered, filtered, failed, expired and
// revoked outcomes, drawn as SVG with classes (the styles live in console.css).
const svgNS = "http://www.w3.org/2000/svg";
export const series = ["delivered", "filtered", "failed", "expired", "revoked"];

function svg(tag, attributes = {}) {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/// `minutes`: [{ minute, counts }] in time order. Answers a <figure> with the chart, a legend
/// and a text summary for readers who cannot see it.
export function minuteChart(minutes, caption) {
  const width = 720, height = 200, left = 36, bottom = 22;
  const highest = Math.max(1, ...minutes.map(({ counts }) => series.reduce((sum, name) => sum + (counts[name] || 0), 0)));
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": caption, class: "chart" });
  const plotWidth = width - left - 4, plotHeight = height - bottom - 8;
  chart.append(svg("line", { x1: left, y1: 8 + plotHeight, x2: width - 4, y2: 8 + plotHeight, class: "axis" }));
  const label = svg("text", { x: left - 6, y: 14, class: "tick", "text-anchor": "end" });
  label.textContent = String(highest);
  chart.append(label);
  const zero = svg("text", { x: left - 6, y: 8 + plotHeight, class: "tick", "text-anchor": "end" });
  zero.textContent = "0";
  chart.append(zero);
  const slot = plotWidth / Math.max(1, minutes.length);
  minutes.forEach(({ minute, counts }, index) => {
    let top = 8 + plotHeight;
    for (const name of series) {
      const value = counts[name] || 0;
      if (!value) continue;
      const barHeight = (value / highest) * plotHeight;
      top -= barHeight;
      const bar = svg("rect", { x: left + index * slot + 1, y: top, width: Math.max(1, slot - 2), height: barHeight, class: `bar bar-${name}` });
      const title = svg("title");
      title.textContent = `${new Date(minute).toLocaleTimeString()}: ${value} ${name}`;
      bar.append(title);
      chart.append(bar);
    }
  });
  if (minutes.length) {
    for (const index of [0, minutes.length - 1]) {
      const tick = svg("text", { x: left + index * slot + slot / 2, y: height - 6, class: "tick", "text-anchor": index ? "end" : "start" });
      tick.textContent = new Date(minutes[index].minute).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      chart.append(tick);
    }
  }
  const legend = document.createElement("ul");
  legend.className = "legend";
  for (const name of series) {
    const item = document.createElement("li");
    item.className = `key key-${name}`;
    item.textContent = name;
    legend.append(item);
  }
  const figure = document.createElement("figure");
  const figcaption = document.createElement("figcaption");
  figcaption.textContent = caption;
  figure.append(figcaption, chart, legend);
  return figure;
}
