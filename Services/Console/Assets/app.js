// The Herald Console: one shell whose pages are drawn from the path (/console/<page>/<id>),
// so every page has a stable link; clicks on console links change the path without a reload.
import { session, forget } from "./api.js";
import { h, show } from "./ui.js";
import { signInPage } from "./page-sign-in.js";
import { overviewPage } from "./page-overview.js";
import { eventsPage } from "./page-events.js";
import { eventPage } from "./page-event.js";
import { sendPage } from "./page-send.js";
import { devicesPage } from "./page-devices.js";
import { devicePage } from "./page-device.js";
import { preferencesPage } from "./page-preferences.js";
import { deadLettersPage } from "./page-dead-letters.js";
import { ingestPage } from "./page-ingest.js";

const pages = [
  { path: "", title: "Overview", draw: overviewPage },
  { path: "events", title: "Events", draw: eventsPage, detail: eventPage },
  { path: "send", title: "Send a test push", draw: sendPage },
  { path: "devices", title: "Devices", draw: devicesPage, detail: devicePage },
  { path: "preferences", title: "Preferences", draw: preferencesPage },
  { path: "dead-letters", title: "Dead letters", draw: deadLettersPage },
  { path: "ingest", title: "Ingest URLs", draw: ingestPage },
];

/// Increases with each navigation: a page that polls stops when it is no longer shown.
let generation = 0;

export function navigate(path) {
  history.pushState(null, "", `/console/${path}`);
  render();
}

function current() {
  const rest = location.pathname.replace(/^\/console\/?/, "");
  const [first = "", ...others] = rest.split("/");
  return { page: first, id: others.length ? decodeURIComponent(others.join("/")) : null, query: new URLSearchParams(location.search) };
}

function drawNav(active) {
  const nav = document.getElementById("nav");
  const who = document.getElementById("who");
  const signedIn = session();
  if (!signedIn) {
    nav.replaceChildren();
    who.replaceChildren();
    return;
  }
  nav.replaceChildren(h("ul", {}, pages.map((page) =>
    h("li", {}, h("a", { href: `/console/${page.path}`, "aria-current": page.path === active ? "page" : null }, page.title)))));
  who.replaceChildren(
    h("span", {}, `${signedIn.app} · key ${signedIn.keyId || ""}`),
    h("button", { type: "button", class: "link", onclick: () => { forget(); navigate(""); } }, "Sign out"));
}

async function render() {
  const main = document.getElementById("main");
  const mine = ++generation;
  const { page, id, query } = current();
  const context = { main, id, query, navigate, alive: () => mine === generation };
  if (!session()) {
    drawNav(null);
    document.title = "Sign in · Herald Console";
    return signInPage(context, () => render());
  }
  const known = pages.find((candidate) => candidate.path === page);
  drawNav(known ? known.path : null);
  if (!known) {
    document.title = "Not found · Herald Console";
    show(main, h("h1", { tabindex: "-1" }, "Not found"), h("p", {}, "The console has no such page."));
    return;
  }
  document.title = `${known.title} · Herald Console`;
  try {
    await (id !== null && known.detail ? known.detail(context) : known.draw(context));
  } catch (error) {
    show(main, h("h1", { tabindex: "-1" }, known.title), h("p", { class: "problem", role: "alert" }, `The page failed: ${error.message}`));
  }
}

document.addEventListener("click", (event) => {
  const anchor = event.target.closest("a");
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || anchor.target) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith("/console/") || url.pathname.startsWith("/console/assets/")) return;
  event.preventDefault();
  history.pushState(null, "", url.pathname + url.search);
  render();
});
window.addEventListener("popstate", render);
window.addEventListener("herald:signed-out", () => render());
render();
