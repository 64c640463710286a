// Small DOM helpers: elements built with textContent only (nothing is parsed as HTML).
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/// A link inside the console (the router takes the click).
export function link(path, ...children) {
  return h("a", { href: `/console/${path}` }, ...children);
}

/// The link to a list's next page: the same filters, and the page's cursor.
export function nextPage(page, query, cursor, text) {
  const next = new URLSearchParams(query);
  next.set("cursor", cursor);
  return h("p", {}, link(`${page}?${next}`, text));
}

/// A table with a caption, column headings and rows of cells.
export function table(caption, headings, rows, empty = "Nothing to show.") {
  if (!rows.length) return h("p", { class: "empty" }, empty);
  return h("div", { class: "scroll" },
    h("table", {},
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, headings.map((heading) => h("th", { scope: "col" }, heading)))),
      h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell)))))));
}

/// A problem+json answer as a message the screen reader announces.
export function problem(answer) {
  const body = answer.body || {};
  const text = `${answer.status || ""} ${body.title || "Error"}: ${body.detail || "the request failed"}`.trim();
  return h("p", { class: "problem", role: "alert" }, text);
}

export function status(value) {
  return h("span", { class: `status status-${value}` }, value);
}

export function time(value) {
  if (!value) return "–";
  const date = new Date(value);
  return h("time", { datetime: value, title: value }, isNaN(date) ? value : date.toLocaleString());
}

export function field(label, input, hint) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), input, hint ? h("small", {}, hint) : null);
}

export function heading(text) {
  return h("h1", { tabindex: "-1" }, text);
}

/// Replaces the page's content and moves focus to its heading, for keyboard and screen readers.
export function show(main, ...children) {
  main.replaceChildren(...children.flat().filter(Boolean));
  const first = main.querySelector("h1");
  (first || main).focus();
}

export function pretty(value) {
  return JSON.stringify(value, null, 2);
}
