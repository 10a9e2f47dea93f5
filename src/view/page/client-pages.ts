/// <reference lib="dom" />
import type { BatchPage, BatchRow, SessionPage, SessionRow } from "../view-types.js";
import type * as TreeFunctions from "./client-tree.js";
import type { TreeState } from "./client-tree.js";

/** The tree's functions: beside these in the page's script (client-script.ts), not imported. */
declare const ViewTree: typeof TreeFunctions;

// The page's views, in the browser: the sessions, a session's tree, the batches, a batch. Each
// view listens to its server-sent events and draws itself again on each. Every text is set as
// textContent; links are fragments (`#/…`) built here. Plain function declarations, served by
// their source text (client-script.ts).

interface Page {
  source?: EventSource;
  tree?: TreeState;
  view: string;
}

/** Starts the page: draws the view the address names, and again when it changes. */
export function startPage(): void {
  const page: Page = { view: "" };
  const show = () => route(page);
  window.addEventListener("hashchange", show);
  fetch("/api/config")
    .then((r) => r.json())
    .then((config: { queue?: string; project?: string }) => {
      const nav = document.getElementById("nav-batches");
      if (nav && config.queue) nav.hidden = false;
      const where = document.getElementById("project");
      if (where) where.textContent = config.project ?? "";
    })
    .catch(() => {});
  show();
}

export function route(page: Page): void {
  page.source?.close();
  page.tree = undefined;
  const hash = location.hash.replace(/^#\/?/, "");
  const [view = "", ...rest] = hash.split("/");
  const arg = rest.map((p) => decodeURIComponent(p));
  const main = document.getElementById("main") as HTMLElement;
  main.replaceChildren();
  page.view = hash;
  if (view === "s" && arg.length === 2)
    listen(page, `/api/session/${arg.map(encodeURIComponent).join("/")}/live`, (d) =>
      drawSession(page, main, d as SessionPage),
    );
  else if (view === "batches") listen(page, "/api/batches/live", (d) => drawBatches(main, d as BatchRow[]));
  else if (view === "b" && arg[0] !== undefined)
    listen(page, `/api/batch/${encodeURIComponent(arg[0])}/live`, (d) => drawBatch(main, d as BatchPage));
  else listen(page, "/api/sessions/live", (d) => drawSessions(main, d as SessionRow[]));
}

export function listen(page: Page, url: string, draw: (data: unknown) => void): void {
  const source = new EventSource(url);
  page.source = source;
  const status = document.getElementById("status");
  source.addEventListener("message", (e) => {
    if (status) status.textContent = "live";
    draw(JSON.parse((e as MessageEvent<string>).data));
  });
  source.addEventListener("problem", (e) => {
    const main = document.getElementById("main") as HTMLElement;
    main.replaceChildren(el("p", "problem", JSON.parse((e as MessageEvent<string>).data) as string));
    source.close();
  });
  source.addEventListener("error", () => {
    if (status) status.textContent = "reconnecting…";
  });
}

/** An element with a class and text (set as textContent), or with children. */
export function el(tag: string, cls: string, ...content: (string | Node)[]): HTMLElement {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of content) e.append(typeof c === "string" ? document.createTextNode(c) : c);
  return e;
}

export function link(href: string, text: string): HTMLAnchorElement {
  const a = document.createElement("a");
  a.setAttribute("href", href);
  a.textContent = text;
  return a;
}

export function badge(state: string): HTMLElement {
  const tone =
    state === "done"
      ? "ok"
      : state === "running" || state === "waiting"
        ? "running"
        : state === "interrupted" || state === "delayed"
          ? "warn"
          : "error";
  return el("span", `part badge ${tone}`, state);
}

export function money(n: number): string {
  return `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;
}

export function when(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "";
}

export function heading(main: HTMLElement, text: string): void {
  const h = el("h1", "", text);
  main.replaceChildren(h);
  document.title = `${text} · agentmd view`;
}

export function drawSessions(main: HTMLElement, rows: SessionRow[]): void {
  heading(main, "Sessions");
  if (rows.length === 0) main.append(el("p", "muted", "No sessions in this project yet."));
  const list = el("ul", "cards");
  list.setAttribute("aria-label", "sessions, newest first");
  for (const r of rows) {
    const title = el("div", "title", link(`#/s/${r.source}/${encodeURIComponent(r.id)}`, r.title || r.id));
    const meta = el(
      "div",
      "meta",
      badge(r.state),
      el("span", "muted", when(r.modified)),
      el("span", "muted", `${r.turns} turns`),
      el("span", "cost", money(r.costUsd)),
      el("span", "muted id", r.id),
    );
    list.append(el("li", "card", title, meta));
  }
  main.append(list);
}

export function drawSession(page: Page, main: HTMLElement, s: SessionPage): void {
  if (page.tree) {
    page.tree.nodes = s.tree;
    ViewTree.drawTree(page.tree);
    const facts = main.querySelector(".facts");
    facts?.replaceWith(factsOf(s.facts));
    main.querySelector(".denials")?.replaceWith(denialsOf(page, s));
    return;
  }
  heading(main, s.title);
  main.append(el("p", "muted id", `session ${s.id}${s.source === "queue" ? " (kept in Redis)" : ""}`));
  if (s.skipped > 0)
    main.append(
      el("p", "warn", `${s.skipped} line(s) of this transcript could not be read and were skipped`),
    );
  main.append(factsOf(s.facts), denialsOf(page, s));
  const tools = el("div", "tools");
  const root = el("div", "tree-box");
  const tree: TreeState = { nodes: s.tree, opened: new Map(), current: undefined, root };
  page.tree = tree;
  for (const [label, open] of [
    ["Open all", true],
    ["Close all", false],
  ] as const) {
    const b = el("button", "", label);
    b.setAttribute("type", "button");
    b.addEventListener("click", () => {
      for (const id of allIds(tree.nodes)) tree.opened.set(id, open);
      ViewTree.drawTree(tree);
    });
    tools.append(b);
  }
  main.append(tools, root);
  ViewTree.drawTree(tree);
}

export function allIds(nodes: SessionPage["tree"] | undefined): string[] {
  return (nodes ?? []).flatMap((n) => [n.id, ...allIds(n.children)]);
}

export function factsOf(facts: SessionPage["facts"]): HTMLElement {
  const dl = el("dl", "facts");
  for (const [k, v] of facts)
    dl.append(el("div", "fact", el("dt", "", k), el("dd", "", k === "state" ? badge(v) : v)));
  return dl;
}

export function denialsOf(page: Page, s: SessionPage): HTMLElement {
  const box = el("section", "denials");
  box.setAttribute("aria-label", "denied calls");
  if (s.denials.length === 0) return box;
  box.append(el("h2", "", `Denied (${s.denials.length})`));
  const list = el("ul", "");
  for (const d of s.denials) {
    const b = el("button", "link", d.text);
    b.setAttribute("type", "button");
    b.addEventListener("click", () => {
      if (page.tree) ViewTree.reveal(page.tree, d.node);
    });
    list.append(el("li", "", b));
  }
  box.append(list);
  return box;
}

export function drawBatches(main: HTMLElement, rows: BatchRow[]): void {
  heading(main, "Batches");
  if (rows.length === 0) main.append(el("p", "muted", "No batches on this queue."));
  const list = el("ul", "cards");
  list.setAttribute("aria-label", "batches");
  for (const b of rows)
    list.append(
      el("li", "card", el("div", "title", link(`#/b/${encodeURIComponent(b.name)}`, b.name)), batchMeta(b)),
    );
  main.append(list);
}

export function batchMeta(b: BatchRow): HTMLElement {
  const bar = document.createElement("progress");
  bar.max = Math.max(1, b.total);
  bar.value = b.done + b.failed;
  bar.setAttribute("aria-label", `${b.done + b.failed} of ${b.total} finished`);
  return el(
    "div",
    "meta",
    bar,
    el("span", "", `${b.done + b.failed}/${b.total}`),
    el("span", "ok", `${b.done} done`),
    el("span", b.failed > 0 ? "error" : "muted", `${b.failed} failed`),
    el("span", "running", `${b.running} running`),
    el("span", "muted", `${b.waiting} waiting`),
    el("span", "cost", money(b.costUsd)),
    el("span", "muted", when(b.queuedAt)),
  );
}

export function drawBatch(main: HTMLElement, p: BatchPage): void {
  heading(main, `Batch ${p.batch.name}`);
  main.append(batchMeta(p.batch));
  const list = el("ul", "cards items");
  list.setAttribute("aria-label", "items of the batch");
  for (const i of p.items) {
    const name = i.session
      ? link(`#/s/${i.session}/${encodeURIComponent(i.sessionId)}`, i.id)
      : el("span", "", i.id);
    const meta = el(
      "div",
      "meta",
      badge(i.state),
      el("span", "muted", `${i.turns} turns`),
      el("span", "cost", money(i.costUsd)),
      ...(i.worker ? [el("span", "muted", i.worker)] : []),
    );
    const row = el("li", "card item", el("div", "title", name), meta);
    row.dataset.state = i.state;
    if (i.message) row.append(el("div", "muted", i.message));
    list.append(row);
  }
  main.append(list);
  if (p.more > 0) main.append(el("p", "muted", `and ${p.more} more item(s) not listed`));
}
