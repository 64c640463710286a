// A device's page: its registration (token masked), its user's preferences, its latest
// deliveries, and removing it (after a confirmation).
import { call } from "./api.js";
import { h, link, pretty, problem, show, status, table, time } from "./ui.js";

export async function devicePage({ main, id, navigate }) {
  show(main, h("h1", { tabindex: "-1" }, "Device"), h("p", {}, "Loading…"));
  const answer = await call(`/devices/${encodeURIComponent(id)}`);
  const parts = [h("h1", { tabindex: "-1" }, "Device"), h("p", { class: "mono" }, id), h("p", {}, link("devices", "All devices"))];
  if (!answer.ok) {
    show(main, ...parts, problem(answer));
    return;
  }
  const { registration, createdAt, updatedAt, lastSeenAt, lastOutcome, recentOutcomes } = answer.body.device;
  parts.push(h("section", { "aria-labelledby": "registration" },
    h("h2", { id: "registration" }, "Registration"),
    h("dl", { class: "facts" },
      h("dt", {}, "User"), h("dd", {}, registration.userId || "–"),
      h("dt", {}, "Platform"), h("dd", { id: "device-platform" }, registration.platform),
      h("dt", {}, "Token"), h("dd", { class: "mono", id: "device-token" }, registration.token),
      h("dt", {}, "OS"), h("dd", {}, registration.os),
      h("dt", {}, "Push ids"), h("dd", {}, registration.pushIds.join(", ") || "–"),
      h("dt", {}, "Payload key"), h("dd", {}, registration.key ? registration.key.keyId : "none (not encrypted)"),
      h("dt", {}, "Registered"), h("dd", {}, time(createdAt)),
      h("dt", {}, "Updated"), h("dd", {}, time(updatedAt)),
      h("dt", {}, "Last seen"), h("dd", {}, time(lastSeenAt)))));
  const outcomes = recentOutcomes || (lastOutcome ? [lastOutcome] : []);
  parts.push(h("section", { "aria-labelledby": "recent" },
    h("h2", { id: "recent" }, "Recent deliveries"),
    table("The device's latest outcomes", ["event", "delivery", "status", "provider code", "at"],
      outcomes.map((outcome) => [link(`events/${encodeURIComponent(outcome.eventId)}`, outcome.eventId), h("span", { class: "mono" }, outcome.deliveryId),
        status(outcome.status), outcome.providerCode || "–", time(outcome.at)]), "No delivery yet.")));
  if (registration.userId) {
    const preferences = await call(`/users/${encodeURIComponent(registration.userId)}/preferences`);
    parts.push(h("section", { "aria-labelledby": "preferences" },
      h("h2", { id: "preferences" }, "Its user's preferences"),
      preferences.ok
        ? h("p", {}, `Notifications ${preferences.body.user.enabled ? "on" : "off"}; muted kinds: ${preferences.body.user.mutedKinds.join(", ") || "none"}. `,
          link(`preferences?user=${encodeURIComponent(registration.userId)}`, "Change them"))
        : problem(preferences)));
  }
  const configuration = await call(`/devices/${encodeURIComponent(id)}/configuration`);
  if (configuration.ok) {
    parts.push(h("section", { "aria-labelledby": "configuration" },
      h("h2", { id: "configuration" }, "Configuration"),
      h("pre", { class: "mono" }, pretty(configuration.body.configuration)),
      h("p", {}, link(`preferences?device=${encodeURIComponent(id)}`, "Edit it"))));
  }
  const message = h("div", { "aria-live": "polite" });
  const confirm = h("button", { type: "button", class: "danger", hidden: true, id: "confirm-remove" }, "Yes, remove it for good");
  const remove = h("button", { type: "button", class: "danger", id: "remove-device" }, "Remove this device");
  remove.addEventListener("click", () => {
    confirm.hidden = false;
    message.replaceChildren(h("p", {}, "Removing stops every push to it. Confirm below."));
    confirm.focus();
  });
  confirm.addEventListener("click", async () => {
    const removed = await call(`/devices/${encodeURIComponent(id)}`, { method: "DELETE" });
    if (!removed.ok) return message.replaceChildren(problem(removed));
    navigate("devices");
  });
  parts.push(h("section", { "aria-labelledby": "remove" }, h("h2", { id: "remove" }, "Remove"), remove, " ", confirm, message));
  show(main, ...parts);
}
