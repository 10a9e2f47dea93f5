/// <reference lib="dom" />
import type { ViewNode } from "../view-types.js";

// The page's tree, in the browser: a WAI-ARIA tree (role tree/treeitem/group, one item in the Tab
// order, arrow keys to move, Enter or Space to open and close). Every text is set as textContent.
// These are plain function declarations, served as the page's script by their source text
// (client-script.ts): they may use one another and the DOM, nothing else of the module.

export interface TreeState {
  nodes: readonly ViewNode[];
  /** What a person opened or closed; a row they did not touch is as the server says. */
  readonly opened: Map<string, boolean>;
  /** The row that is in the Tab order. */
  current: string | undefined;
  readonly root: HTMLElement;
}

export function isOpen(state: TreeState, node: ViewNode): boolean {
  return state.opened.get(node.id) ?? node.open === true;
}

export function expandable(node: ViewNode): boolean {
  return (node.children?.length ?? 0) > 0 || node.pre !== undefined;
}

/** Draws the tree again from `state.nodes`, keeping what was open and where the focus was. */
export function drawTree(state: TreeState): void {
  const hadFocus = state.root.contains(document.activeElement);
  const tree = document.createElement("ul");
  tree.setAttribute("role", "tree");
  tree.setAttribute("aria-label", "hops of the session");
  tree.className = "tree";
  const items = new Map<string, HTMLElement>();
  for (const node of state.nodes) tree.append(treeItem(state, node, 1, items));
  if (state.current === undefined || !items.has(state.current)) state.current = state.nodes[0]?.id;
  const current = state.current === undefined ? undefined : items.get(state.current);
  current?.setAttribute("tabindex", "0");
  tree.addEventListener("keydown", (e) => onTreeKey(state, e));
  state.root.replaceChildren(tree);
  if (hadFocus) current?.focus();
}

export function treeItem(
  state: TreeState,
  node: ViewNode,
  level: number,
  items: Map<string, HTMLElement>,
): HTMLElement {
  const li = document.createElement("li");
  li.setAttribute("role", "treeitem");
  li.setAttribute("aria-level", String(level));
  li.setAttribute("tabindex", "-1");
  li.dataset.id = node.id;
  items.set(node.id, li);
  const row = document.createElement("div");
  row.className = "row";
  const twisty = document.createElement("span");
  twisty.className = "twisty";
  twisty.setAttribute("aria-hidden", "true");
  row.append(twisty);
  for (const part of node.parts) {
    const span = document.createElement("span");
    span.className = `part ${part.cls ?? ""}`;
    span.textContent = part.text;
    row.append(span);
  }
  li.append(row);
  row.addEventListener("click", (e) => {
    e.stopPropagation();
    state.current = node.id;
    if (expandable(node)) toggle(state, node.id);
    else drawTree(state);
    focusItem(state, node.id);
  });
  if (!expandable(node)) return li;
  const open = isOpen(state, node);
  li.setAttribute("aria-expanded", String(open));
  twisty.textContent = open ? "▾" : "▸";
  if (!open) return li;
  if (node.pre !== undefined) {
    const pre = document.createElement("pre");
    pre.textContent = node.pre;
    li.append(pre);
  }
  if (node.children && node.children.length > 0) {
    const group = document.createElement("ul");
    group.setAttribute("role", "group");
    for (const child of node.children) group.append(treeItem(state, child, level + 1, items));
    li.append(group);
  }
  return li;
}

export function toggle(state: TreeState, id: string, open?: boolean): void {
  const node = findNode(state.nodes, id);
  if (!node || !expandable(node)) return;
  state.opened.set(id, open ?? !isOpen(state, node));
  drawTree(state);
}

export function findNode(nodes: readonly ViewNode[] | undefined, id: string): ViewNode | undefined {
  for (const node of nodes ?? []) {
    if (node.id === id) return node;
    const found = findNode(node.children, id);
    if (found) return found;
  }
  return undefined;
}

/** The ids from a top row down to `id` (empty when it is not in the tree). */
export function pathTo(nodes: readonly ViewNode[] | undefined, id: string): string[] {
  for (const node of nodes ?? []) {
    if (node.id === id) return [id];
    const below = pathTo(node.children, id);
    if (below.length > 0) return [node.id, ...below];
  }
  return [];
}

/** Opens every row above `id`, and gives it the focus. */
export function reveal(state: TreeState, id: string): void {
  const path = pathTo(state.nodes, id);
  for (const above of path.slice(0, -1)) state.opened.set(above, true);
  state.current = id;
  drawTree(state);
  focusItem(state, id);
  visibleItems(state)
    .find((li) => li.dataset.id === id)
    ?.scrollIntoView({ block: "center" });
}

export function focusItem(state: TreeState, id: string): void {
  for (const li of visibleItems(state)) {
    const mine = li.dataset.id === id;
    li.setAttribute("tabindex", mine ? "0" : "-1");
    if (mine) li.focus();
  }
  state.current = id;
}

/** The rows a person can see, in order (those inside a closed row are not drawn). */
export function visibleItems(state: TreeState): HTMLElement[] {
  return Array.from(state.root.querySelectorAll<HTMLElement>('[role="treeitem"]'));
}

export function onTreeKey(state: TreeState, e: KeyboardEvent): void {
  const items = visibleItems(state);
  const at = items.findIndex((li) => li.dataset.id === state.current);
  const li = items[at];
  const id = li?.dataset.id;
  if (li === undefined || id === undefined) return;
  const node = findNode(state.nodes, id);
  const open = li.getAttribute("aria-expanded") === "true";
  const move = (to: HTMLElement | undefined) => {
    const next = to?.dataset.id;
    if (next !== undefined) focusItem(state, next);
  };
  switch (e.key) {
    case "ArrowDown":
      move(items[at + 1]);
      break;
    case "ArrowUp":
      move(items[at - 1]);
      break;
    case "Home":
      move(items[0]);
      break;
    case "End":
      move(items.at(-1));
      break;
    case "ArrowRight":
      if (node && expandable(node) && !open) toggle(state, id, true);
      else if (open) move(li.querySelector<HTMLElement>('[role="group"] > [role="treeitem"]') ?? undefined);
      break;
    case "ArrowLeft":
      if (open) toggle(state, id, false);
      else move(li.parentElement?.closest<HTMLElement>('[role="treeitem"]') ?? undefined);
      break;
    case "Enter":
    case " ":
      toggle(state, id);
      break;
    default:
      return;
  }
  e.preventDefault();
  if (state.current !== undefined && !state.root.contains(document.activeElement))
    focusItem(state, state.current);
}
