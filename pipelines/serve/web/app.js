// The page of tweetindex serve: every number, line, point and row on it is
// an answer of the API (/api/QUESTION), asked with the parameters of the
// form, which are also the page's own URL parameters (q, op, field, from,
// to, lang), so that a view can be shared.
"use strict";

const PAGE = 20;          // tweets a page
const MAP_LIMIT = 1000;   // points on the map
const TOP = 10;           // hashtags and users in the top panel
const WORLD = "-180,-90,180,90";
const COLORS = ["#e63946", "#457b9d", "#2a9d8f", "#f4a261", "#8d5fd3", "#6a994e", "#999999"];

const $ = (id) => document.getElementById(id);

// ask asks a question and returns the answer's rows (jsonl), the parsed
// GeoJSON (format=geojson) and the response.
async function ask(question, params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== "" && v !== undefined && v !== null) u.set(k, v);
  }
  const resp = await fetch("api/" + question + "?" + u.toString());
  const text = await resp.text();
  if (!resp.ok) {
    let msg = text;
    try { msg = JSON.parse(text).error; } catch (e) { /* not JSON */ }
    const err = new Error(question + ": " + msg);
    err.status = resp.status;
    throw err;
  }
  if (params.format === "geojson") return { geojson: JSON.parse(text), resp };
  const rows = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  return { rows, resp };
}

// state is what the page shows: the form's values and the page's cursors.
const state = { q: "", op: "and", field: "text", from: "", to: "", lang: "", cursors: [""] };

function readURL() {
  const u = new URLSearchParams(location.search);
  for (const k of ["q", "op", "field", "from", "to", "lang"]) {
    if (u.has(k)) state[k] = u.get(k);
    $(k).value = state[k];
  }
}

function range() {
  return { from: state.from, to: state.to, lang: state.lang };
}

// terms returns the search's terms as the API takes them, or null: a
// phrase in double quotes ("climate change") is the phrase parameter.
function terms() {
  let phrase = "";
  const rest = state.q.replace(/"([^"]*)"?/, (_, s) => { phrase = s.trim(); return ","; });
  const t = rest.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (t.length === 0 && phrase === "") return null;
  const p = { field: state.field };
  if (phrase !== "") p.phrase = phrase;
  if (t.length === 1 && !(phrase !== "" && state.op === "or")) p.term = t[0];
  else if (t.length > 0) p[state.op] = t.join(","); // with a phrase and OR: any of them
  return p;
}

function status(msg) { $("status").textContent = msg; }

// stepFor picks the series' step for a range of hours.
function stepFor(hours) {
  if (hours <= 6) return "minute";
  if (hours <= 24 * 14) return "hour";
  return "day";
}

async function loadSummary() {
  const [c, g] = await Promise.all([
    ask("count", { ...range(), format: "jsonl" }),
    ask("count-geo", { ...range(), bbox: WORLD, format: "jsonl" }),
  ]);
  $("total").textContent = c.rows[0].tweets.toLocaleString("en");
  $("total").dataset.value = c.rows[0].tweets;
  $("total-geo").textContent = g.rows[0].geotagged_tweets.toLocaleString("en");
  showCoverage(c.resp.headers.get("Tweetindex-Coverage"));
  const t = terms();
  $("term-count").textContent = "";
  if (t && t.term && !t.phrase) {
    const n = await ask("count-term", { ...range(), term: t.term, field: t.field, format: "jsonl" });
    $("term-count").textContent = ", " + n.rows[0].tweets.toLocaleString("en") + " with " + t.term;
  }
}

// showCoverage says, in one line, which parts of the range the indexed
// runs did not cover (the API's Tweetindex-Coverage header): nothing when
// all of it is covered.
function showCoverage(header) {
  const el = $("coverage");
  let c = null;
  try { c = JSON.parse(header); } catch (e) { /* no coverage */ }
  el.dataset.status = c ? c.status : "";
  if (!c || c.status === "covered") {
    el.textContent = "";
    el.title = "";
    return;
  }
  const short = (t) => t.replace(":00Z", "Z").replace("T00:00Z", "");
  const gaps = c.spans.filter((s) => s.status !== "covered").map((s) => short(s.from) + " to " + short(s.to) + " " + s.status);
  el.textContent = (gaps.length ? "Not all of the range is indexed: " + gaps.join(", ") : "Coverage: " + c.status) + ".";
  el.title = "Which parts of the range the recorded runs read (tweetindex backfill status lists them)";
}

async function loadSeries() {
  const hours = await ask("series", { ...range(), by: "hour", format: "jsonl" });
  const step = stepFor(hours.rows.length);
  $("step").textContent = step;
  const s = await ask("series", { ...range(), by: step, "by-lang": "true", format: "jsonl" });
  drawSeries(s.rows, step);
}

// drawSeries draws a line per language (the six largest, the rest as
// "other") over the steps, as SVG.
function drawSeries(rows, step) {
  const steps = [...new Set(rows.map((r) => r[step]))].sort();
  const totals = {};
  for (const r of rows) totals[r.lang] = (totals[r.lang] || 0) + r.tweets;
  const langs = Object.keys(totals).sort((a, b) => totals[b] - totals[a] || (a < b ? -1 : 1));
  const shown = langs.length > 7 ? langs.slice(0, 6) : langs;
  const lines = {};
  for (const l of shown) lines[l] = new Array(steps.length).fill(0);
  if (langs.length > shown.length) lines.other = new Array(steps.length).fill(0);
  const at = Object.fromEntries(steps.map((s, i) => [s, i]));
  for (const r of rows) {
    const line = lines[r.lang] || lines.other;
    line[at[r[step]]] += r.tweets;
  }
  const names = Object.keys(lines);
  const W = 600, H = 240, L = 40, B = 20;
  const max = Math.max(1, ...names.flatMap((n) => lines[n]));
  const x = (i) => L + (steps.length < 2 ? 0 : (i * (W - L - 5)) / (steps.length - 1));
  const y = (v) => H - B - (v * (H - B - 10)) / max;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const el = (name, attrs, text) => {
    const e = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  el("line", { x1: L, y1: H - B, x2: W - 5, y2: H - B, stroke: "#999" });
  el("line", { x1: L, y1: 10, x2: L, y2: H - B, stroke: "#999" });
  el("text", { x: L - 4, y: 14, "text-anchor": "end", "font-size": 10 }, String(max));
  el("text", { x: L - 4, y: H - B, "text-anchor": "end", "font-size": 10 }, "0");
  if (steps.length > 0) {
    el("text", { x: L, y: H - 4, "font-size": 10 }, steps[0].replace("T", " ").replace(":00Z", ""));
    el("text", { x: W - 5, y: H - 4, "text-anchor": "end", "font-size": 10 }, steps[steps.length - 1].replace("T", " ").replace(":00Z", ""));
  }
  names.forEach((n, k) => {
    const pts = lines[n].map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    el("polyline", { points: pts, fill: "none", stroke: COLORS[k % COLORS.length], "stroke-width": 1.5, "data-lang": n });
  });
  const box = $("series");
  box.replaceChildren(svg);
  const legend = document.createElement("div");
  legend.className = "legend";
  names.forEach((n, k) => {
    const s = document.createElement("span");
    const i = document.createElement("i");
    i.style.background = COLORS[k % COLORS.length];
    s.append(i, n);
    legend.appendChild(s);
  });
  box.appendChild(legend);
  box.dataset.points = steps.length;
  box.dataset.langs = names.length;
}

let map, world, points;

// unwrap makes the rings of a polygon that crosses the antimeridian (Fiji,
// Chukotka) continuous, so that it is not drawn as a band across the map.
function unwrap(g) {
  if (!g) return;
  const polys = g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : [];
  for (const poly of polys) {
    for (const ring of poly) {
      for (let i = 1; i < ring.length; i++) {
        while (ring[i][0] - ring[i - 1][0] > 180) ring[i][0] -= 360;
        while (ring[i][0] - ring[i - 1][0] < -180) ring[i][0] += 360;
      }
    }
  }
}

function initMap() {
  map = L.map("map", { worldCopyJump: true, attributionControl: false }).setView([20, 0], 1);
  points = L.layerGroup().addTo(map);
  return fetch("vendor/countries-110m.json").then((r) => r.json()).then((topo) => {
    const countries = topojson.feature(topo, topo.objects.countries);
    countries.features.forEach((f) => unwrap(f.geometry));
    world = L.geoJSON(countries, {
      style: { color: "#888", weight: 0.5, fillColor: "#f1efe9", fillOpacity: 1 },
    }).addTo(map);
    world.bringToBack();
  });
}

async function loadMap() {
  const t = terms();
  let g;
  if (t) {
    g = await ask("terms", { ...range(), ...t, limit: MAP_LIMIT, format: "geojson" });
    $("map-note").textContent = "(the first " + MAP_LIMIT + " tweets of the search, those with a point)";
  } else {
    g = await ask("geo", { ...range(), bbox: WORLD, places: "true", limit: MAP_LIMIT, format: "geojson" });
    $("map-note").textContent = "(the first " + MAP_LIMIT + "; red: exact coordinates, blue: a place's centre)";
  }
  points.clearLayers();
  let n = 0;
  for (const f of g.geojson.features) {
    if (!f.geometry) continue;
    const [lon, lat] = f.geometry.coordinates;
    const exact = f.properties.point === "exact";
    L.circleMarker([lat, lon], { radius: 4, weight: 1, color: exact ? "#e63946" : "#457b9d", fillOpacity: 0.6 })
      .bindTooltip("@" + f.properties.user + ": " + f.properties.text)
      .addTo(points);
    n++;
  }
  $("map").dataset.markers = n;
}

// loadTop fills the panel of the top hashtags (the API's top, from the
// per-day term counts: whole UTC days) and the top users (users, exact to
// the second), over the page's range and language. Neither question takes
// terms: with a search, the panel says they count every tweet of the
// range. A store indexed with --term-days=false has no per-day term counts:
// the panel says so in one line, and still lists the users.
async function loadTop() {
  const t = terms();
  $("top-scope").textContent = t ? "(of every tweet of the range, not only the search's)" : "(of the range)";
  const [h, u] = await Promise.allSettled([
    ask("top", { ...range(), field: "hashtag", limit: TOP, format: "jsonl" }),
    ask("users", { ...range(), top: TOP, format: "jsonl" }),
  ]);
  const note = $("top-note");
  const tags = $("hashtags").tBodies[0];
  tags.replaceChildren();
  $("hashtags").dataset.rows = 0;
  if (h.status === "fulfilled") {
    note.dataset.termdays = "yes";
    $("hashtags").hidden = false;
    const n = h.value.resp.headers.get("Tweetindex-Note");
    note.textContent = n ? "note: " + n : "";
    note.title = "";
    for (const r of h.value.rows) {
      const tr = tags.insertRow();
      const a = document.createElement("a");
      const q = new URLSearchParams({ q: r.term });
      for (const k of ["from", "to", "lang"]) if (state[k] !== "") q.set(k, state[k]);
      a.href = "?" + q.toString();
      a.textContent = r.term;
      a.className = "hashtag";
      a.addEventListener("click", (ev) => { ev.preventDefault(); searchFor(r.term); });
      tr.insertCell().append(a);
      tr.insertCell().textContent = r.tweets;
    }
    $("hashtags").dataset.rows = h.value.rows.length;
  } else if (h.reason.status === 409) {
    // One line, whatever the width: the panel's own words, the API's in its title.
    note.dataset.termdays = "no";
    $("hashtags").hidden = true;
    note.textContent = "No top hashtags: this store keeps no per-day term counts (indexed with --term-days=false, or by a version that kept them only when asked); index into a new store to count them.";
    note.title = h.reason.message;
  } else {
    note.dataset.termdays = "unknown";
    throw h.reason;
  }
  const body = $("users").tBodies[0];
  body.replaceChildren();
  if (u.status === "rejected") throw u.reason;
  for (const r of u.value.rows) {
    const tr = body.insertRow();
    tr.insertCell().textContent = r.user === "" ? "(no screen name)" : "@" + r.user;
    tr.insertCell().textContent = r.tweets;
  }
  $("users").dataset.rows = u.value.rows.length;
}

async function loadTweets() {
  const t = terms();
  const cursor = state.cursors[state.cursors.length - 1];
  const p = { ...range(), limit: PAGE, cursor, format: "jsonl" };
  const a = t ? await ask("terms", { ...p, ...t }) : await ask("tweets", p);
  $("tweets-title").textContent = t ? "Tweets of the search" : "Tweets of the range";
  const body = $("tweets").tBodies[0];
  body.replaceChildren();
  for (const r of a.rows) {
    const tr = body.insertRow();
    tr.insertCell().textContent = r.created_at.replace("T", " ").replace("Z", "");
    tr.insertCell().textContent = r.lang;
    tr.insertCell().textContent = r.user === "" ? "" : "@" + r.user;
    const td = tr.insertCell();
    td.className = "text";
    td.textContent = r.text;
  }
  $("tweets").dataset.rows = a.rows.length;
  const next = a.resp.headers.get("Tweetindex-Next-Cursor");
  $("next").disabled = !next;
  $("next").dataset.cursor = next || "";
  $("first").disabled = state.cursors.length === 1;
  $("page").textContent = "page " + state.cursors.length;
}

async function loadAll() {
  document.body.dataset.state = "loading";
  status("asking…");
  const parts = [loadSummary(), loadSeries(), loadMap(), loadTop(), loadTweets()];
  const done = await Promise.allSettled(parts);
  const failed = done.filter((d) => d.status === "rejected").map((d) => d.reason.message);
  status(failed.join("; "));
  document.body.dataset.state = failed.length ? "error" : "ready";
}

function pageTo(cursors) {
  state.cursors = cursors;
  document.body.dataset.state = "loading";
  loadTweets().then(() => { status(""); document.body.dataset.state = "ready"; },
    (e) => { status(e.message); document.body.dataset.state = "error"; });
}

// search runs the form's search, the page's URL following it.
function search() {
  const u = new URLSearchParams();
  for (const k of ["q", "op", "field", "from", "to", "lang"]) {
    state[k] = $(k).value.trim();
    if (state[k] !== "" && !(k === "op" && state[k] === "and") && !(k === "field" && state[k] === "text")) u.set(k, state[k]);
  }
  state.cursors = [""];
  history.replaceState(null, "", "?" + u.toString());
  loadAll();
}

// searchFor searches for one term (a hashtag clicked in the top panel),
// in the text, over the same range and language.
function searchFor(term) {
  $("q").value = term;
  $("op").value = "and";
  $("field").value = "text";
  search();
}

$("search").addEventListener("submit", (ev) => { ev.preventDefault(); search(); });
$("next").addEventListener("click", () => pageTo([...state.cursors, $("next").dataset.cursor]));
$("first").addEventListener("click", () => pageTo([""]));

readURL();
initMap().then(loadAll, (e) => { status("the map's outlines: " + e.message); loadAll(); });
