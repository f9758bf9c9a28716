#pragma once
// The fixed parts of a labeling page (labeling_page.hpp): its style, its controls and the script
// that draws the steps from the data the page carries (a JSON object in <script id="labeling">).
namespace burggen::explain {

inline const char* kPageStyle = R"css(body { font-family: Helvetica, Arial, sans-serif; margin: 1em 2em; color: #222; }
h1 { font-size: 1.3em; }
#controls { display: flex; gap: 0.6em; align-items: center; margin: 0.5em 0; }
#controls input[type=range] { flex: 1; }
button { font-size: 1em; padding: 0.2em 0.8em; }
#caption { font-family: monospace; font-size: 1.05em; white-space: pre; background: #f4f4f4; padding: 0.4em; margin: 0.3em 0; }
#phase { margin: 0.3em 0; min-height: 2.4em; }
#main { display: flex; gap: 1.5em; align-items: flex-start; }
#tree { overflow: auto; max-width: 70vw; max-height: 75vh; border: 1px solid #ddd; }
#panel { min-width: 22em; }
#panel h2 { font-size: 1.05em; margin: 0 0 0.4em 0; }
table.entries { border-collapse: collapse; font-size: 0.95em; }
table.entries td, table.entries th { border: 1px solid #bbb; padding: 0.15em 0.5em; text-align: left; }
table.entries td.cost { text-align: right; }
tr.focus td { background: #ffd966; font-weight: bold; }
tr.tried td { background: #eeeeee; }
tr.covered td { background: #b6d7a8; }
tr.none td { color: #999; }
#covers { display: flex; flex-wrap: wrap; gap: 1em; margin-top: 1em; }
#covers .cover { border: 1px solid #bbb; padding: 0.4em; }
#covers h3 { font-size: 1em; margin: 0 0 0.3em 0; }
svg text { font-family: Helvetica, Arial, sans-serif; font-size: 11px; }
svg .head { font-weight: bold; }
svg rect.box { fill: #ffffff; stroke: #999; }
svg g.pending rect.box { fill: #fafafa; stroke: #ddd; }
svg g.pending text { fill: #bbb; }
svg g.current rect.box { stroke: #c00; stroke-width: 3; }
svg g.unmatched rect.box { fill: #f4cccc; stroke: #c00; }
svg g.reduced rect.headbox { fill: #cfe2f3; }
svg g.inside rect.headbox { fill: #eeeeee; }
svg rect.headbox { fill: #e8e8e8; stroke: none; }
svg rect.improved { fill: #ffd966; }
svg rect.covered { fill: #b6d7a8; }
svg line { stroke: #888; }
)css";

inline const char* kPageBody =
    R"html(<p>Bottom up, each node is visited after its kids and every rule whose pattern matches there is
tried: a rule's cost is its own plus the costs of its pattern's leaves, and an entry of the node's
table (nonterminal, cost, rule) is kept when it is cheaper than the one there. Then the cover is
read back top down from the start nonterminal. Use Next and Back, the slider, or the arrow keys.</p>
<div id="controls"><button id="back">&#9664; Back</button><input id="slider" type="range" min="1" value="1">
<button id="next">Next &#9654;</button><span id="counter"></span></div>
<div id="caption"></div>
<div id="phase"></div>
<div id="main"><div id="tree"></div>
<div id="panel"><h2 id="panel-title"></h2><table class="entries" id="entries"></table></div></div>
<div id="covers"></div>
<pre id="walk" hidden></pre>
)html";

inline const char* kPageScript = R"js("use strict";
const D = JSON.parse(document.getElementById("labeling").textContent);
const nodes = D.nodes, NT = D.nonterminals;
const $ = (id) => document.getElementById(id);
const esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// The steps: each node's visit (once its kids are labeled) followed by the matches tried there,
// as the matcher recorded them; then the reduction, one rule of the cover a step; then the end.
const steps = [];
{
  let run = [];
  for (const s of D.steps) {
    if (s.nt !== 0) { run.push(Object.assign({kind: "match"}, s)); continue; }
    steps.push({kind: "visit", node: s.node});
    steps.push(...run);
    run = [];
  }
  steps.push(...run);
}
if (D.covers.length > 0) {
  D.covers[0].rules.forEach((r, i) => steps.push({kind: "reduce", node: r.node, nt: r.nt, index: i}));
  steps.push({kind: D.covers.length > 1 ? "covers" : "cover", node: D.root});
} else {
  steps.push({kind: "failure", node: D.unmatched.length ? D.unmatched[0] : D.root});
}

// What the labeler knows after step i: each node's entries, the nodes visited, the cover so far.
function stateAt(i) {
  const tables = nodes.map(() => ({}));
  const visited = new Set();
  const covered = nodes.map(() => ({}));
  for (let j = 0; j <= i; ++j) {
    const s = steps[j];
    if (s.kind === "visit") visited.add(s.node);
    else if (s.kind === "match" && s.better) tables[s.node][s.nt] = {cost: s.cost, rule: s.rule, text: s.text};
    else if (s.kind === "reduce") covered[s.node][s.nt] = true;
  }
  if (i >= 0 && steps[i].kind !== "visit" && steps[i].kind !== "match") nodes.forEach((n) => visited.add(n.id));
  return {tables, visited, covered};
}

// The line the step shows: for matches and the reduction, the line `--trace` prints.
function caption(s) {
  const n = nodes[s.node];
  switch (s.kind) {
    case "visit":
      return `#${n.id} ${n.op}: ` + (n.kids.length ? "its kids are labeled; its rules are tried" : "a leaf; its rules are tried");
    case "match":
      return `#${n.id} ${n.op}: ${s.text} = ${s.rule}  cost ${s.cost}` + (s.better ? "" : "  (not better)");
    case "reduce": {
      const r = D.covers[0].rules[s.index];
      return `${r.text}  [#${n.id} ${n.op}, cost ${r.cost}]`;
    }
    case "cover":
      return `the cover: cost ${D.covers[0].cost}, ${D.covers[0].rules.length} rules`;
    case "covers":
      return `the ${D.covers.length} cheapest covers`;
    default:
      return "no cover: " + D.failure;
  }
}

function explanation(s) {
  switch (s.kind) {
    case "visit":
      return "Bottom up: this node is visited after its kids, whose tables are final. Each rule whose pattern matches here is tried next.";
    case "match":
      if (!s.better) return "This match costs no less than the entry the node keeps for " + NT[s.nt] + ", which stays.";
      return s.chain ? "A chain rule: the entry it starts from improved, so it is tried again; it improves " + NT[s.nt] + "."
                     : "The pattern matches here: its cost is the rule's own plus its leaves' costs, and it improves " + NT[s.nt] + ".";
    case "reduce":
      return "Top down from " + NT[D.start] + ": the rule kept at this node for " + NT[s.nt] +
             " is taken, then the nonterminal leaves of its pattern, each with its own rule.";
    case "cover":
      return "The cover: green entries are the rules chosen; blue nodes start a rule, grey ones lie inside a bigger pattern.";
    case "covers":
      return "The cheapest covers side by side, each with its total cost (the first is the one drawn above).";
    default:
      return "Labeling ended without a cover. Red nodes: no rule matched them.";
  }
}

// The tree's layout: leaves left to right, each parent centred over its kids.
const BOX_W = 190, ROW_H = 15, HEAD_H = 20, GAP_X = 14, GAP_Y = 34;
const BOX_H = HEAD_H + ROW_H * (NT.length - 1) + 6;
const pos = [];
{
  let leaves = 0;
  const place = (id, depth) => {
    const n = nodes[id];
    n.kids.forEach((k) => place(k, depth + 1));
    const x = n.kids.length ? (pos[n.kids[0]].x + pos[n.kids[n.kids.length - 1]].x) / 2
                            : GAP_X + (leaves++) * (BOX_W + GAP_X);
    pos[id] = {x, y: depth * (BOX_H + GAP_Y) + GAP_X};
  };
  place(D.root, 0);
}
const WIDTH = Math.max(...pos.map((p) => p.x)) + BOX_W + GAP_X;
const HEIGHT = Math.max(...pos.map((p) => p.y)) + BOX_H + GAP_X;

// The tree as SVG. rows(id) gives a node's rows: [{text, cls}]; nodeClass(id) its box's class.
function drawTree(rows, nodeClass, scale) {
  let out = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH * scale}" height="${HEIGHT * scale}" viewBox="0 0 ${WIDTH} ${HEIGHT}">`;
  for (const n of nodes)
    for (const k of n.kids)
      out += `<line x1="${pos[n.id].x + BOX_W / 2}" y1="${pos[n.id].y + BOX_H}" x2="${pos[k].x + BOX_W / 2}" y2="${pos[k].y}"/>`;
  for (const n of nodes) {
    const p = pos[n.id];
    out += `<g class="node ${nodeClass(n.id)}" data-id="${n.id}"><rect class="box" x="${p.x}" y="${p.y}" width="${BOX_W}" height="${BOX_H}"/>`;
    out += `<rect class="headbox" x="${p.x + 1}" y="${p.y + 1}" width="${BOX_W - 2}" height="${HEAD_H - 2}"/>`;
    out += `<text class="head" x="${p.x + 5}" y="${p.y + 14}">${esc(n.title)}  #${n.id}</text>`;
    rows(n.id).forEach((r, i) => {
      const y = p.y + HEAD_H + i * ROW_H;
      if (r.cls) out += `<rect class="${r.cls}" x="${p.x + 2}" y="${y + 1}" width="${BOX_W - 4}" height="${ROW_H - 1}"/>`;
      out += `<text x="${p.x + 5}" y="${y + 12}">${esc(r.text)}</text>`;
    });
    out += "</g>";
  }
  return out + "</svg>";
}

function show(i) {
  const s = steps[i];
  const st = stateAt(i);
  const reduced = new Set(), inCover = Object.keys(st.covered).length > 0;
  st.covered.forEach((c, id) => { if (Object.keys(c).length) reduced.add(id); });
  const atEnd = s.kind === "cover" || s.kind === "covers";
  $("counter").textContent = `step ${i + 1} of ${steps.length}`;
  $("slider").value = i + 1;
  $("caption").textContent = caption(s);
  $("phase").textContent = explanation(s);
  const focusNt = (s.kind === "match" || s.kind === "reduce") ? s.nt : 0;
  $("tree").innerHTML = drawTree(
      (id) => {
        const rows = [];
        for (let nt = 1; nt < NT.length; ++nt) {
          const e = st.tables[id][nt];
          if (!e) continue;
          let cls = st.covered[id][nt] ? "covered" : "";
          if (id === s.node && nt === focusNt && (s.kind === "reduce" || s.better)) cls = "improved";
          rows.push({text: `${NT[nt]}  ${e.cost}  (rule ${e.rule})`, cls});
        }
        return rows;
      },
      (id) => {
        const cls = [];
        if (!st.visited.has(id)) cls.push("pending");
        if (id === s.node && !atEnd) cls.push("current");
        if (s.kind === "failure" && D.unmatched.includes(id)) cls.push("unmatched");
        if (atEnd) cls.push(reduced.has(id) ? "reduced" : "inside");
        return cls.join(" ");
      },
      1);
  // The table of the step's node.
  const n = nodes[s.node];
  $("panel-title").textContent = `#${n.id} ${n.title}`;
  let table = "<tr><th>nonterminal</th><th>cost</th><th>rule</th></tr>";
  for (let nt = 1; nt < NT.length; ++nt) {
    const e = st.tables[s.node][nt];
    let cls = e ? (st.covered[s.node][nt] ? "covered" : "") : "none";
    if (nt === focusNt) cls = s.kind === "match" && !s.better ? "focus tried" : "focus";
    table += `<tr class="${cls}"><td>${esc(NT[nt])}</td><td class="cost">${e ? e.cost : "&#8212;"}</td>` +
             `<td>${e ? esc(e.rule + ": " + e.text) : ""}</td></tr>`;
  }
  $("entries").innerHTML = table;
  // The k best covers, each drawn with its own rules.
  let covers = "";
  if (s.kind === "covers") {
    D.covers.forEach((c, k) => {
      const rules = nodes.map(() => []);
      c.rules.forEach((r) => rules[r.node].push({text: `${NT[r.nt]}: ${r.text}`, cls: "covered"}));
      covers += `<div class="cover"><h3>cover ${k + 1} (cost ${c.cost})</h3>` +
                drawTree((id) => rules[id], (id) => rules[id].length ? "reduced" : "inside", 0.6) + "</div>";
    });
  }
  $("covers").innerHTML = covers;
}

let current = 0;
function go(i) {
  current = Math.max(0, Math.min(steps.length - 1, i));
  show(current);
}
$("slider").max = steps.length;
$("next").addEventListener("click", () => go(current + 1));
$("back").addEventListener("click", () => go(current - 1));
$("slider").addEventListener("input", (e) => go(Number(e.target.value) - 1));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") go(current + 1);
  if (e.key === "ArrowLeft") go(current - 1);
});

// What a step shows, read back from the page: its number, the caption, the focused table row
// (nonterminal=cost), the node outlined in the tree, and the covers' titles.
function shown() {
  const focus = document.querySelector("#entries tr.focus");
  const cells = focus ? focus.querySelectorAll("td") : [];
  const outlined = document.querySelector("#tree g.current");
  const covers = [...document.querySelectorAll("#covers h3")].map((h) => h.textContent);
  return [$("counter").textContent, $("caption").textContent, focus ? cells[0].textContent + "=" + cells[1].textContent : "",
          outlined ? "#" + outlined.dataset.id : "", covers.join("; ")].join("\t");
}

const query = new URLSearchParams(location.search);
go(Number(query.get("step") || 1) - 1);
if (query.has("walk")) {
  // Clicks through every step from the first, as a reader would, and records what each showed.
  go(0);
  const lines = [shown()];
  for (let i = 1; i < steps.length; ++i) {
    $("next").click();
    lines.push(shown());
  }
  $("walk").textContent = lines.join("\n");
  $("walk").hidden = false;
}
if (query.has("step") || query.has("walk")) $("walk").dataset.shown = shown();
)js";

}  // namespace burggen::explain
