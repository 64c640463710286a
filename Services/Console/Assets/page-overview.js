// Overview: the last hour per minute (a chart) and per provider, the queues with their
// depths and consumers, the app's dead letters waiting, and each service's readiness.
import { call, consoleCall } from "./api.js";
import { h, link, problem, show, status, table } from "./ui.js";
import { minuteChart } from "./chart.js";

const columns = ["accepted", "delivered", "filtered", "failed", "expired", "revoked"];

export async function overviewPage({ main }) {
  show(main, h("h1", { tabindex: "-1" }, "Overview"), h("p", {}, "Loading…"));
  const [stats, system] = await Promise.all([call("/stats?window=1h"), consoleCall("/system")]);
  const parts = [h("h1", { tabindex: "-1" }, "Overview")];
  if (stats.ok) {
    const { totals, minutes, providers } = stats.body.stats;
    parts.push(h("section", { "aria-labelledby": "last-hour" },
      h("h2", { id: "last-hour" }, "The last hour"),
      h("dl", { class: "totals" }, columns.map((name) => h("div", {}, h("dt", {}, name), h("dd", { id: `total-${name}` }, String(totals[name]))))),
      minuteChart(minutes, "Outcomes per minute, the last hour"),
      table("Per provider, the last hour", ["provider", ...columns.slice(1)],
        providers.map((provider) => [provider.platform, ...columns.slice(1).map((name) => String(provider.totals[name]))]),
        "No delivery in the last hour.")));
  } else {
    parts.push(problem(stats));
  }
  if (system.ok) {
    const { services = [], queues = [], deadLetters, management, brokerError } = system.body;
    parts.push(h("section", { "aria-labelledby": "services" },
      h("h2", { id: "services" }, "Services"),
      table("Readiness of each service", ["service", "ready", "checks"], services.map((service) => [
        service.name, status(service.ready ? "ready" : "not-ready"),
        service.error || checks(service.checks),
      ]), "No service is listed (HERALD_CONSOLE_SERVICES names them).")));
    parts.push(h("section", { "aria-labelledby": "dead" },
      h("h2", { id: "dead" }, "Dead letters"),
      brokerError ? h("p", { class: "problem", role: "alert" }, `The broker: ${brokerError}`)
        : h("p", {}, h("strong", { id: "dead-letter-count" }, String(deadLetters)), ` of this app's messages wait in the dead-letters queue. `, link("dead-letters", "See them"), ".")));
    parts.push(h("section", { "aria-labelledby": "queues" },
      h("h2", { id: "queues" }, "Queues"),
      table(management ? "Every Herald queue (rates from the management API)" : "Every Herald queue", ["queue", "ready", "unacked", "consumers", "in /s", "out /s"],
        grouped(queues).map((queue) => [queue.name, String(queue.ready), queue.unacknowledged ?? "–", String(queue.consumers),
          queue.publishRate?.toFixed(1) ?? "–", queue.deliverRate?.toFixed(1) ?? "–"]))));
  } else {
    parts.push(problem(system));
  }
  show(main, ...parts);
}

/// A provider's retry tiers (retry.fcm.1s … retry.fcm.20m) as one row with their sums.
function grouped(queues) {
  const rows = [];
  const tiers = new Map();
  for (const queue of queues) {
    const match = /^retry\.([^.]+)\./.exec(queue.name);
    if (!match) {
      rows.push(queue);
      continue;
    }
    let row = tiers.get(match[1]);
    if (!row) {
      row = { name: `retry.${match[1]}.* (0 tiers)`, tiers: 0, ready: 0, consumers: 0 };
      tiers.set(match[1], row);
      rows.push(row);
    }
    row.tiers += 1;
    row.name = `retry.${match[1]}.* (${row.tiers} tiers)`;
    row.ready += queue.ready;
    row.consumers += queue.consumers;
    if (queue.unacknowledged !== undefined) row.unacknowledged = (row.unacknowledged || 0) + queue.unacknowledged;
    if (queue.publishRate !== undefined) row.publishRate = (row.publishRate || 0) + queue.publishRate;
    if (queue.deliverRate !== undefined) row.deliverRate = (row.deliverRate || 0) + queue.deliverRate;
  }
  return rows;
}

/// A service's checks in a few words: all passing, or the ones failing.
function checks(all) {
  const entries = Object.entries(all);
  const failing = entries.filter(([, state]) => state !== "ok").map(([name]) => name);
  if (!entries.length) return "–";
  return failing.length ? `failing: ${failing.join(", ")}` : `all ${entries.length} checks pass`;
}
