// An event's page: every delivery's outcome, provider code, attempts and time, refreshed
// every second while a delivery has no final outcome (for a minute at most).
import { call, session } from "./api.js";
import { h, link, problem, show, status, table, time } from "./ui.js";

const final = new Set(["delivered", "filtered", "expired", "failed", "revoked"]);

/// The event's trace id, linked to the trace viewer when HERALD_CONSOLE_TRACE_URL names one.
function trace(traceId) {
  if (!traceId) return "not traced";
  const template = session()?.traceURL;
  if (!template) return traceId;
  return h("a", { href: template.replace("{traceId}", encodeURIComponent(traceId)), target: "_blank", rel: "noopener" }, traceId);
}

export async function eventPage({ main, id, alive }) {
  const started = Date.now();
  for (let first = true; ; first = false) {
    const answer = await call(`/events/${encodeURIComponent(id)}`);
    if (!alive()) return;
    const parts = [h("h1", { tabindex: "-1" }, "Event"), h("p", { class: "mono" }, id), h("p", {}, link("events", "All events"))];
    let waiting = false;
    if (answer.ok) {
      const { resolved, deliveries, summary } = answer.body.event;
      // The event log says how many outcomes the event awaits; until it has them all, it is pending.
      waiting = !summary || summary.status === "pending" || deliveries.some((delivery) => !final.has(delivery.status));
      if (summary) {
        parts.push(h("dl", { class: "facts" },
          h("dt", {}, "Status"), h("dd", { id: "event-status" }, status(summary.status)),
          h("dt", {}, "Source and kind"), h("dd", {}, `${summary.source} · ${summary.kind}`),
          h("dt", {}, "Accepted"), h("dd", {}, time(summary.acceptedAt)),
          h("dt", {}, "Completed"), h("dd", {}, summary.completedAt ? time(summary.completedAt) : "not yet"),
          h("dt", {}, "Trace"), h("dd", { id: "event-trace", class: "mono" }, trace(summary.traceId))));
      }
      const counts = {};
      for (const delivery of deliveries) counts[delivery.status] = (counts[delivery.status] || 0) + 1;
      const expected = summary ? summary.deliveries : deliveries.length;
      parts.push(h("p", { id: "event-summary", "aria-live": "polite" },
        resolved ? `${deliveries.length} of ${expected} outcomes: ${Object.entries(counts).map(([name, count]) => `${count} ${name}`).join(", ") || "none yet"}` : "Not resolved yet",
        waiting ? " (updating…)" : ""));
      parts.push(table("Deliveries", ["delivery", "status", "provider code", "attempts", "at", "reason"],
        deliveries.map((delivery) => [h("span", { class: "mono" }, delivery.deliveryId), status(delivery.status),
          delivery.providerCode || "–", String(delivery.updates), time(delivery.at), delivery.reason || ""]),
        waiting ? "No outcome yet." : "The event reached nobody."));
    } else if (answer.status === 404) {
      waiting = true;
      parts.push(h("p", { id: "event-summary", "aria-live": "polite" }, "Not known yet (updating…)"));
    } else {
      parts.push(problem(answer));
    }
    main.replaceChildren(...parts);
    if (first) main.querySelector("h1").focus();
    if (!waiting || Date.now() - started > 60000) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (!alive()) return;
  }
}
