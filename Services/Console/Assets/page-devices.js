// Devices: find devices by user, device id or the end of their token; each links to its page.
import { call, session } from "./api.js";
import { h, field, link, nextPage, problem, show, status, table, time } from "./ui.js";

const modes = [
  { value: "tokenSuffix", label: "Token ends with" },
  { value: "user", label: "User id" },
  { value: "device", label: "Device id" },
];

export async function devicesPage({ main, query, navigate }) {
  const by = h("select", { name: "by" }, modes.map((mode) => h("option", { value: mode.value, selected: mode.value === (query.get("by") || "tokenSuffix") }, mode.label)));
  const value = h("input", { name: "q", value: query.get("q") || "", spellcheck: "false" });
  const platform = h("select", { name: "platform" }, ["", ...(session()?.platforms || [])].map((name) => h("option", { value: name, selected: name === (query.get("platform") || "") }, name || "any")));
  const form = h("form", { class: "filters", id: "device-search", role: "search" },
    field("Search by", by), field("Value", value), field("Platform", platform), h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, item] of new FormData(form)) if (item) next.set(name, item);
    if (by.value === "device" && value.value.trim()) return navigate(`devices/${encodeURIComponent(value.value.trim())}`);
    navigate(`devices${next.size ? `?${next}` : ""}`);
  });
  show(main, h("h1", { tabindex: "-1" }, "Devices"), form, h("p", {}, "Loading…"));
  const mode = query.get("by") || "tokenSuffix";
  const q = query.get("q") || "";
  const params = new URLSearchParams();
  if (query.get("platform")) params.set("platform", query.get("platform"));
  if (query.get("cursor")) params.set("cursor", query.get("cursor"));
  let path = "/devices";
  if (q && mode === "user") path = `/users/${encodeURIComponent(q)}/devices`;
  else if (q) params.set("tokenSuffix", q);
  const answer = await call(`${path}?${params}`);
  const parts = [h("h1", { tabindex: "-1" }, "Devices"), form];
  if (!answer.ok) {
    parts.push(problem(answer));
  } else {
    const { devices, nextCursor } = answer.body;
    parts.push(table("Devices, most recently registered first", ["device", "user", "platform", "token", "registered", "last outcome"],
      devices.map(({ registration, createdAt, lastOutcome }) => [
        link(`devices/${encodeURIComponent(registration.deviceId)}`, registration.deviceId), registration.userId || "–",
        registration.platform, h("span", { class: "mono" }, registration.token), time(createdAt),
        lastOutcome ? status(lastOutcome.status) : "–",
      ]), "No device matches."));
    if (nextCursor) parts.push(nextPage("devices", query, nextCursor, "More devices"));
  }
  show(main, ...parts);
}
