// Preferences: the app's network switch (Upstra's admin panel), a user's switch and muted
// kinds, a user's switch for one channel, and a Sudo device's configuration.
import { call } from "./api.js";
import { h, field, pretty, problem, show } from "./ui.js";

function say(element, text) {
  element.replaceChildren(h("p", {}, text));
}

function networkSection() {
  const state = h("p", { id: "network-state", "aria-live": "polite" }, "Loading…");
  const toggle = h("button", { type: "button", id: "network-toggle", "aria-pressed": "false" }, "…");
  const message = h("div", { "aria-live": "polite" });
  let enabled = null;
  function draw() {
    state.textContent = `Notifications for the whole app are ${enabled ? "on" : "off"}.`;
    toggle.textContent = enabled ? "Turn the network off" : "Turn the network on";
    toggle.setAttribute("aria-pressed", String(enabled));
  }
  (async () => {
    const answer = await call("/settings/notifications");
    if (!answer.ok) return message.replaceChildren(problem(answer));
    enabled = answer.body.networkEnabled;
    draw();
  })();
  toggle.addEventListener("click", async () => {
    const answer = await call("/settings/notifications", { method: "PUT", body: { enabled: !enabled } });
    if (!answer.ok) return message.replaceChildren(problem(answer));
    enabled = answer.body.networkEnabled;
    draw();
    say(message, "Saved.");
  });
  return h("section", { class: "card", "aria-labelledby": "network" }, h("h2", { id: "network" }, "Network switch"), state, toggle, message);
}

function userSection(initial) {
  const user = h("input", { name: "user", value: initial || "", spellcheck: "false", required: true });
  const enabled = h("input", { type: "checkbox", name: "enabled", id: "user-enabled" });
  const muted = h("input", { name: "mutedKinds", spellcheck: "false", id: "user-muted" });
  const message = h("div", { "aria-live": "polite" });
  const editor = h("fieldset", { hidden: true },
    h("legend", {}, "The user's settings"),
    h("div", { class: "check" }, enabled, h("label", { for: "user-enabled" }, "Notifications on")),
    field("Muted kinds (comma-separated)", muted),
    h("button", { type: "submit", id: "user-save" }, "Save"));
  const form = h("form", { id: "user-preferences" }, field("User id", user), h("button", { type: "button", id: "user-load" }, "Load"), editor, message);
  async function load() {
    const answer = await call(`/users/${encodeURIComponent(user.value.trim())}/preferences`);
    if (!answer.ok) return message.replaceChildren(problem(answer));
    enabled.checked = answer.body.user.enabled;
    muted.value = answer.body.user.mutedKinds.join(", ");
    editor.hidden = false;
    message.replaceChildren();
  }
  form.querySelector("#user-load").addEventListener("click", load);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const mutedKinds = muted.value.split(",").map((kind) => kind.trim()).filter(Boolean);
    const answer = await call(`/users/${encodeURIComponent(user.value.trim())}/preferences`, { method: "PUT", body: { enabled: enabled.checked, mutedKinds } });
    if (!answer.ok) return message.replaceChildren(problem(answer));
    say(message, "Saved.");
  });
  if (initial) load();
  return h("section", { class: "card", "aria-labelledby": "user-heading" }, h("h2", { id: "user-heading" }, "A user"), form);
}

function channelSection() {
  const user = h("input", { name: "user", spellcheck: "false", id: "channel-user" });
  const channel = h("input", { name: "channel", spellcheck: "false", id: "channel-id" });
  const enabled = h("input", { type: "checkbox", name: "enabled", id: "channel-enabled" });
  const message = h("div", { "aria-live": "polite" });
  const editor = h("fieldset", { hidden: true },
    h("legend", {}, "The user's switch for this channel"),
    h("div", { class: "check" }, enabled, h("label", { for: "channel-enabled" }, "Notifications from this channel on")),
    h("button", { type: "submit", id: "channel-save" }, "Save"));
  const form = h("form", { id: "channel-preferences" }, field("User id", user), field("Channel id", channel),
    h("button", { type: "button", id: "channel-load" }, "Load"), editor, message);
  const path = () => `/users/${encodeURIComponent(user.value.trim())}/channels/${encodeURIComponent(channel.value.trim())}/preferences`;
  form.querySelector("#channel-load").addEventListener("click", async () => {
    const answer = await call(path());
    if (!answer.ok) return message.replaceChildren(problem(answer));
    enabled.checked = answer.body.channelEnabled;
    editor.hidden = false;
    message.replaceChildren();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await call(path(), { method: "PUT", body: { enabled: enabled.checked } });
    if (!answer.ok) return message.replaceChildren(problem(answer));
    say(message, `Saved: the channel is ${answer.body.channelEnabled ? "on" : "muted"} for this user.`);
  });
  return h("section", { class: "card", "aria-labelledby": "channel-heading" }, h("h2", { id: "channel-heading" }, "A user's channel"), form);
}

function configurationSection(initial) {
  const device = h("input", { name: "device", value: initial || "", spellcheck: "false", id: "configuration-device" });
  const text = h("textarea", { rows: "10", class: "mono", spellcheck: "false", id: "configuration-text" });
  const message = h("div", { "aria-live": "polite" });
  let tag = null;
  const editor = h("div", { hidden: true }, field("Configuration (JSON)", text), h("button", { type: "submit", id: "configuration-save" }, "Save"));
  const form = h("form", { id: "configuration" }, field("Device id", device), h("button", { type: "button", id: "configuration-load" }, "Load"), editor, message);
  async function load() {
    const answer = await call(`/devices/${encodeURIComponent(device.value.trim())}/configuration`);
    if (!answer.ok) return message.replaceChildren(problem(answer));
    tag = answer.headers.get("ETag");
    text.value = pretty(answer.body.configuration);
    editor.hidden = false;
    message.replaceChildren();
  }
  form.querySelector("#configuration-load").addEventListener("click", load);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let body;
    try {
      body = JSON.parse(text.value);
    } catch (error) {
      return message.replaceChildren(h("p", { class: "problem", role: "alert" }, `Not JSON: ${error.message}`));
    }
    const answer = await call(`/devices/${encodeURIComponent(device.value.trim())}/configuration`, { method: "PUT", body, headers: tag ? { "If-Match": tag } : {} });
    if (!answer.ok) return message.replaceChildren(problem(answer));
    tag = answer.headers.get("ETag");
    text.value = pretty(answer.body.configuration);
    say(message, "Saved.");
  });
  if (initial) load();
  return h("section", { class: "card", "aria-labelledby": "configuration-heading" }, h("h2", { id: "configuration-heading" }, "A device's configuration (Sudo)"), form);
}

export function preferencesPage({ main, query }) {
  show(main, h("h1", { tabindex: "-1" }, "Preferences"),
    networkSection(), userSection(query.get("user")), channelSection(), configurationSection(query.get("device")));
}
