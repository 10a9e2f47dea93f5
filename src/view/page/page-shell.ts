/**
 * The page's HTML and style: fixed text of ours (no transcript data is ever put in them; the
 * script fetches that as JSON and sets it as text). No font, image or script from elsewhere.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentmd view</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header>
<nav aria-label="views"><a href="#/">Sessions</a><a id="nav-batches" href="#/batches" hidden>Batches</a></nav>
<span id="project" class="muted"></span>
<span id="status" class="muted" role="status" aria-live="polite"></span>
</header>
<main id="main" tabindex="-1"></main>
<script src="/app.js"></script>
</body>
</html>
`;

export const PAGE_CSS = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1b1f24; --muted: #59636e; --line: #d1d9e0;
  --ok: #1a7f37; --bad: #cf222e; --run: #0969da; --warn: #9a6700; --card: #f6f8fa; --focus: #0969da; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1;
  --line: #3d444d; --ok: #3fb950; --bad: #f85149; --run: #4493f8; --warn: #d29922; --card: #151b23; --focus: #4493f8; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: baseline; padding: .5rem 1rem;
  border-bottom: 1px solid var(--line); }
nav { display: flex; gap: 1rem; }
main { padding: .5rem 1rem 3rem; max-width: 80rem; }
h1 { font-size: 1.3rem; margin: .5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: .75rem 0 .25rem; }
a { color: var(--run); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: .5rem; top: .5rem; background: var(--bg); padding: .25rem .5rem; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.muted { color: var(--muted); }
.id { font-family: ui-monospace, monospace; font-size: .85em; overflow-wrap: anywhere; }
.ok { color: var(--ok); } .error, .denied { color: var(--bad); } .running { color: var(--run); }
.warn { color: var(--warn); } .cost { font-variant-numeric: tabular-nums; }
.badge { border: 1px solid currentColor; border-radius: 1em; padding: 0 .5em; font-size: .85em; }
.cards { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; min-width: 0; }
.title { font-weight: 600; overflow-wrap: anywhere; }
.meta { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: center; margin-top: .2rem; }
progress { width: 8rem; max-width: 100%; }
.facts { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; margin: .5rem 0; }
.fact { display: flex; gap: .4rem; } dt { color: var(--muted); } dd { margin: 0; }
.denials ul { margin: .25rem 0; padding-left: 1.25rem; }
button { font: inherit; color: inherit; background: var(--card); border: 1px solid var(--line);
  border-radius: 6px; padding: .15rem .6rem; cursor: pointer; }
button.link { border: 0; background: none; padding: 0; color: var(--bad); text-align: left; text-decoration: underline; }
.tools { display: flex; gap: .5rem; margin: .75rem 0 .25rem; }
.tree, .tree ul { list-style: none; margin: 0; padding: 0; }
.tree ul { padding-left: 1.1rem; border-left: 1px solid var(--line); margin-left: .45rem; }
[role="treeitem"] { min-width: 0; }
[role="treeitem"]:focus { outline: none; }
[role="treeitem"]:focus-visible > .row, [role="treeitem"]:focus > .row { outline: 3px solid var(--focus); outline-offset: -1px; border-radius: 4px; }
.row { display: flex; flex-wrap: wrap; gap: .1rem .6rem; align-items: baseline; padding: .15rem .25rem; cursor: default; }
.row:hover { background: var(--card); }
.twisty { width: 1em; flex: none; color: var(--muted); }
.part { overflow-wrap: anywhere; min-width: 0; }
.part.kind { color: var(--muted); font-size: .85em; text-transform: uppercase; letter-spacing: .03em; }
.part.name { font-weight: 600; }
.part.ok, .part.denied, .part.error, .part.running, .part.warn { border: 1px solid currentColor; border-radius: 1em; padding: 0 .45em; font-size: .85em; }
.part.rule { font-family: ui-monospace, monospace; font-size: .85em; background: var(--card); border: 1px solid var(--line); border-radius: 4px; padding: 0 .3em; overflow-wrap: anywhere; }
pre { margin: .2rem 0 .4rem 1.25rem; padding: .4rem .6rem; background: var(--card); border: 1px solid var(--line);
  border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 28rem; overflow: auto;
  font: .85em/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.problem { color: var(--bad); }
@media (max-width: 480px) { main, header { padding-left: .5rem; padding-right: .5rem; } .tree ul { padding-left: .6rem; margin-left: .3rem; } }
`;
