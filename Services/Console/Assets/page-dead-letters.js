// Dead letters: the app's messages in the dead-letters queue with why and where from; show
// one, replay it to where it came from, or purge it after a confirmation (the gateway does
// it with heraldctl's library).
import { consoleCall } from "./api.js";
import { h, pretty, problem, show, table, time } from "./ui.js";

export async function deadLettersPage(context, note) {
  const { main } = context;
  show(main, h("h1", { tabindex: "-1" }, "Dead letters"), h("p", {}, "Loading…"));
  const answer = await consoleCall("/dead-letters");
  const message = h("div", { id: "dead-letter-message", "aria-live": "polite" }, note ? h("p", {}, note) : null);
  const detail = h("div", { id: "dead-letter-detail" });
  const parts = [h("h1", { tabindex: "-1" }, "Dead letters"), message];
  if (!answer.ok) {
    show(main, ...parts, problem(answer));
    return;
  }
  const rows = answer.body.deadLetters.map((letter) => {
    const showButton = h("button", { type: "button", class: "link" }, "Show");
    showButton.addEventListener("click", async () => {
      const one = await consoleCall(`/dead-letters/${encodeURIComponent(letter.id)}`);
      if (!one.ok) return detail.replaceChildren(problem(one));
      const { body, headers } = one.body.deadLetter;
      let formatted = body;
      try { formatted = pretty(JSON.parse(body)); } catch {}
      detail.replaceChildren(h("h2", { tabindex: "-1" }, letter.id), h("h3", {}, "Headers"), h("pre", { class: "mono" }, pretty(headers)),
        h("h3", {}, "Body"), h("pre", { class: "mono" }, formatted));
      detail.querySelector("h2").focus();
    });
    const replay = h("button", { type: "button", "data-id": letter.id, class: "replay" }, "Replay");
    replay.addEventListener("click", async () => {
      const done = await consoleCall("/dead-letters/replay", { method: "POST", body: { ids: [letter.id] } });
      if (!done.ok) return message.replaceChildren(problem(done));
      await deadLettersPage(context, `Replayed ${letter.id} to ${letter.exchange} ${letter.routingKey}.`);
    });
    const confirm = h("button", { type: "button", class: "danger", hidden: true }, `Yes, delete ${letter.id} for good`);
    const purge = h("button", { type: "button", class: "danger purge", "data-id": letter.id }, "Purge");
    purge.addEventListener("click", () => {
      confirm.hidden = false;
      confirm.focus();
    });
    confirm.addEventListener("click", async () => {
      const done = await consoleCall("/dead-letters/purge", { method: "POST", body: { ids: [letter.id], confirm: true } });
      if (!done.ok) return message.replaceChildren(problem(done));
      await deadLettersPage(context, `Purged ${letter.id}.`);
    });
    return [h("span", { class: "mono" }, letter.id), letter.contract || "–", letter.reason, `${letter.exchange || "(default exchange)"} → ${letter.routingKey}`,
      String(letter.replays), time(letter.deadLetteredAt), h("span", { class: "actions" }, showButton, replay, purge, confirm)];
  });
  parts.push(table("This app's dead letters, oldest first", ["id", "contract", "reason", "from", "replays", "at", "actions"], rows, "No dead letter: nothing waits."), detail);
  show(main, ...parts);
}
