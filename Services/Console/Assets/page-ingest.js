// Ingest URLs: per-source URLs whose path carries a secret, for an upstream that can be given a
// URL but sends no Authorization header (Verity's sponsor endpoint, Smart ID's push server).
// Make one (its URL is shown this once), rotate its secret (both work until the old one is
// revoked), revoke a secret or the whole URL. Those of the apps file are listed, not changed.
import { call } from "./api.js";
import { field, h, problem, show, table, time } from "./ui.js";

const sources = ["evernym", "smartid", "upstra", "email", "webcom", "events"];

/// The URL an answer that made a secret names, shown once with a warning.
function made(answer) {
  const url = `${location.protocol}//<your gateway's public address>${answer.path}`;
  return h("div", { class: "made", role: "status" },
    h("p", {}, `Ingest URL ${answer.id} (${answer.source}), secret ${answer.fingerprint}: give this path, after your gateway's public address, to the upstream. It is shown this once.`),
    h("pre", { class: "mono", id: "ingest-made-path" }, answer.path),
    h("small", {}, `e.g. ${url.replace(/^https?:\/\//, "https://")}`));
}

export async function ingestPage(context, note) {
  const { main } = context;
  show(main, h("h1", { tabindex: "-1" }, "Ingest URLs"), h("p", {}, "Loading…"));
  const answer = await call("/ingest-urls");
  const message = h("div", { id: "ingest-message", "aria-live": "polite" }, note || null);
  const parts = [h("h1", { tabindex: "-1" }, "Ingest URLs"),
    h("p", {}, "A URL whose path carries its secret, for an upstream that sends no Authorization header. Requests to it act as an events key of this app, for its source's endpoint only."),
    message];
  if (!answer.ok) {
    show(main, ...parts, problem(answer));
    return;
  }
  const rows = answer.body.ingestURLs.map((url) => {
    const fromFile = url.secrets.some((secret) => secret.origin === "file");
    const actions = h("span", { class: "actions" });
    if (!fromFile) {
      const rotate = h("button", { type: "button", class: "rotate", "data-id": url.id }, "Rotate");
      rotate.addEventListener("click", async () => {
        const done = await call(`/ingest-urls/${encodeURIComponent(url.id)}/secrets`, { method: "POST" });
        if (!done.ok) return message.replaceChildren(problem(done));
        await ingestPage(context, made(done.body));
      });
      const confirm = h("button", { type: "button", class: "danger", hidden: true }, `Yes, revoke ${url.id}`);
      const revoke = h("button", { type: "button", class: "danger revoke", "data-id": url.id }, "Revoke");
      revoke.addEventListener("click", () => { confirm.hidden = false; confirm.focus(); });
      confirm.addEventListener("click", async () => {
        const done = await call(`/ingest-urls/${encodeURIComponent(url.id)}`, { method: "DELETE" });
        if (!done.ok) return message.replaceChildren(problem(done));
        await ingestPage(context, h("p", {}, `Revoked ${url.id}: every gateway refuses it within seconds.`));
      });
      actions.append(rotate, revoke, confirm);
    }
    const secrets = h("span", {}, url.secrets.map((secret) => {
      const item = h("span", { class: "mono secret" }, `${secret.fingerprint} `, secret.origin === "file" ? "(apps file)" : time(secret.createdAt), " ");
      if (!fromFile && url.secrets.length > 1) {
        const drop = h("button", { type: "button", class: "link revoke-secret", "data-fingerprint": secret.fingerprint }, `revoke ${secret.fingerprint}`);
        drop.addEventListener("click", async () => {
          const done = await call(`/ingest-urls/${encodeURIComponent(url.id)}/secrets/${secret.fingerprint}`, { method: "DELETE" });
          if (!done.ok) return message.replaceChildren(problem(done));
          await ingestPage(context, h("p", {}, `Revoked secret ${secret.fingerprint} of ${url.id}.`));
        });
        item.append(drop, " ");
      }
      return item;
    }));
    return [h("span", { class: "mono" }, url.id), url.source, url.networks.length ? url.networks.join(", ") : "any", secrets, actions];
  });
  const id = h("input", { name: "id", required: true, pattern: "[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}", placeholder: "verity" });
  const source = h("select", { name: "source" }, sources.map((name) => h("option", { value: name }, name)));
  const networks = h("input", { name: "networks", placeholder: "203.0.113.0/24, 2001:db8::/32" });
  const form = h("form", { id: "ingest-create" },
    h("fieldset", {}, h("legend", {}, "Make an ingest URL"),
      field("Id", id), field("Source", source), field("Sender networks", networks, "optional: CIDRs, comma-separated; others are refused"),
      h("button", { type: "submit" }, "Make it")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { id: id.value.trim(), source: source.value };
    const list = networks.value.split(",").map((text) => text.trim()).filter(Boolean);
    if (list.length) body.networks = list;
    const done = await call("/ingest-urls", { method: "POST", body });
    if (!done.ok) return message.replaceChildren(problem(done));
    await ingestPage(context, made(done.body));
  });
  parts.push(table("This app's ingest URLs", ["id", "source", "sender networks", "secrets", "actions"], rows, "No ingest URL yet."), form);
  show(main, ...parts);
}
