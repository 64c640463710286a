// Events: the app's events, most recent first, filtered by source, kind, status and time;
// the filters and the page's cursor are in the link, so a view can be shared.
import { call } from "./api.js";
import { h, field, link, nextPage, problem, show, status, table, time } from "./ui.js";

const sources = ["", "api", "smartid", "evernym", "upstra", "sudo-email", "webcom"];
const statuses = ["", "pending", "delivered", "partial", "failed", "filtered"];

function select(name, options, value) {
  return h("select", { name }, options.map((option) => h("option", { value: option, selected: option === value }, option || "any")));
}

function localInput(name, value) {
  // datetime-local shows local time; the API takes RFC 3339.
  const input = h("input", { name, type: "datetime-local", step: "1" });
  if (value) {
    const date = new Date(value);
    if (!isNaN(date)) input.value = new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
  }
  return input;
}

export async function eventsPage({ main, query, navigate }) {
  const form = h("form", { class: "filters", id: "event-filters" },
    field("Source", select("source", sources, query.get("source") || "")),
    field("Kind", h("input", { name: "kind", value: query.get("kind") || "", spellcheck: "false" })),
    field("Status", select("status", statuses, query.get("status") || "")),
    field("Since", localInput("since", query.get("since"))),
    field("Until", localInput("until", query.get("until"))),
    h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (!value) continue;
      next.set(name, name === "since" || name === "until" ? new Date(value).toISOString() : value);
    }
    navigate(`events${next.size ? `?${next}` : ""}`);
  });
  show(main, h("h1", { tabindex: "-1" }, "Events"), form, h("p", {}, "Loading…"));
  const answer = await call(`/events?${query}`);
  const parts = [h("h1", { tabindex: "-1" }, "Events"), h("p", {}, link("send", "Send a test push")), form];
  if (!answer.ok) {
    parts.push(problem(answer));
  } else {
    const { events, nextCursor } = answer.body;
    parts.push(table("Events, most recent first", ["event", "source", "kind", "accepted", "status", "deliveries", "delivered", "filtered", "failed"],
      events.map((event) => [
        link(`events/${encodeURIComponent(event.eventId)}`, event.eventId), event.source, event.kind, time(event.acceptedAt),
        status(event.status), String(event.deliveries), String(event.counts.delivered), String(event.counts.filtered),
        String(event.counts.failed + event.counts.expired + event.counts.revoked),
      ]), "No event matches."));
    if (nextCursor) parts.push(nextPage("events", query, nextCursor, "Older events"));
  }
  show(main, ...parts);
}
