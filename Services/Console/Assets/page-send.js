// Send a test push: a sample of any integration's shape (or the canonical event), made by
// the gateway from each source's sample (the same heraldctl sends), editable, posted through
// the public API; then the event's page shows its outcomes arriving. The integrations listed
// are the sources the gateway serves.
import { call, consoleCall } from "./api.js";
import { h, field, problem, show } from "./ui.js";

const targetLabels = { user: "User id", pushId: "Push id", sponsee: "Sponsee id", address: "Email address id (and its owner as user id)" };

export async function sendPage({ main, query, navigate }) {
  const listed = await consoleCall("/samples");
  if (!listed.ok) {
    show(main, h("h1", { tabindex: "-1" }, "Send a test push"), problem(listed));
    return;
  }
  const integrations = listed.body.samples;
  const integration = h("select", { name: "integration" },
    integrations.map((item) => h("option", { value: item.value, selected: item.value === (query.get("integration") || "event") }, item.label)));
  const target = h("input", { name: "target", spellcheck: "false", value: query.get("target") || "" });
  const owner = h("input", { name: "owner", spellcheck: "false" });
  const ownerField = field("Owner (user id)", owner);
  const targetField = field(targetLabels.user, target);
  const path = h("input", { name: "path", readonly: true, class: "mono" });
  const body = h("textarea", { name: "body", rows: "12", class: "mono", spellcheck: "false" });
  const message = h("div", { id: "send-message", "aria-live": "polite" });
  let headers = {};

  function relabel() {
    const chosen = integrations.find((item) => item.value === integration.value);
    targetField.querySelector("label").textContent = targetLabels[chosen.target];
    ownerField.hidden = chosen.target !== "address";
  }
  integration.addEventListener("change", relabel);

  const prepare = h("form", { class: "card", id: "prepare" },
    field("Integration", integration), targetField, ownerField,
    h("button", { type: "submit" }, "Prepare the request"));
  prepare.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = integrations.find((item) => item.value === integration.value);
    const wanted = { [chosen.target]: target.value.trim() };
    if (chosen.target === "address") wanted.user = owner.value.trim();
    const answer = await consoleCall(`/samples/${chosen.value}`, { method: "POST", body: wanted });
    if (!answer.ok) {
      message.replaceChildren(problem(answer));
      return;
    }
    path.value = answer.body.path;
    body.value = JSON.stringify(JSON.parse(answer.body.body), null, 2);
    headers = answer.body.headers || {};
    message.replaceChildren(h("p", {}, "Prepared: edit the body if you like, then send it."));
    body.focus();
  });

  const send = h("form", { class: "card", id: "send" },
    field("Path (below /v1/apps/{app})", path), field("Body", body),
    h("button", { type: "submit" }, "Send"));
  send.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!path.value) {
      message.replaceChildren(h("p", { class: "problem", role: "alert" }, "Prepare a request first."));
      return;
    }
    message.replaceChildren(h("p", {}, "Sending…"));
    const answer = await call(path.value, { method: "POST", body: body.value, headers });
    if (!answer.ok) {
      message.replaceChildren(problem(answer));
      return;
    }
    navigate(`events/${encodeURIComponent(answer.body.eventId)}`);
  });

  show(main, h("h1", { tabindex: "-1" }, "Send a test push"),
    h("p", {}, "Posts a sample as its upstream would, through the public API, then follows the event."),
    prepare, send, message);
  relabel();
}
