// Sign in with an app id and an API key that has the console (or admin) scope. The key is
// kept for this browser session only (sessionStorage) and never put in a URL.
import { signIn } from "./api.js";
import { h, field, problem, show } from "./ui.js";

export function signInPage({ main }, done) {
  const app = h("input", { name: "app", autocomplete: "username", required: true, spellcheck: "false" });
  const key = h("input", { name: "key", type: "password", autocomplete: "current-password", required: true });
  const message = h("div", { id: "sign-in-message", "aria-live": "polite" });
  const form = h("form", { class: "card narrow", id: "sign-in" },
    field("App", app),
    field("API key", key, "A key with the console or admin scope. It is kept in this tab until you sign out or close it."),
    h("button", { type: "submit" }, "Sign in"), message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.replaceChildren(h("p", {}, "Signing in…"));
    const answer = await signIn(app.value.trim(), key.value.trim());
    if (!answer.ok) {
      key.value = "";
      message.replaceChildren(problem(answer));
      key.focus();
      return;
    }
    done();
  });
  show(main, h("h1", { tabindex: "-1" }, "Sign in"), form);
  app.focus();
}
