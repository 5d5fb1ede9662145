// The STRADS dashboard: polls /api/status (the document of `strads status --json`) every second,
// shows the members and the jobs, and plots the selected job's trace (/api/jobs/ID/trace) as SVG.
// Served by the coordinator; nothing is fetched from elsewhere.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                "#7f7f7f", "#bcbd22", "#17becf"];
let selected = null;     // job id the user clicked, else the running or newest job

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function num(v, digits) {
  if (v === null || v === undefined) return "-";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toLocaleString("en-US");
  return v.toPrecision(digits || 6);
}

function fillTable(id, rows) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren(...rows);
}

function row(cells, attrs) {
  const tr = el("tr", attrs);
  for (const c of cells) {
    const td = el("td", c.cls ? {class: c.cls} : {}, c.text);
    tr.appendChild(td);
  }
  return tr;
}

function renderMembers(status) {
  fillTable("members", status.members.map(m => row([
    {text: m.id, cls: "text"}, {text: m.role, cls: "text"}, {text: m.host, cls: "text"},
    {text: String(m.pid)},
    {text: m.heartbeat_age_s.toFixed(1) + " s", cls: m.heartbeat_age_s > 2 ? "stale" : ""},
    {text: m.busy ? "yes" : "no"}], {"data-member": m.id})));
}

function jobCells(j) {
  const started = j.state !== "QUEUED";
  const dash = v => started ? v : "-";
  if (j.engine === "static") {
    return [
      dash(`iteration ${j.iteration}/${j.iterations}, ${j.sub_rounds} sub-rounds`),
      dash(`${num(j.work)} ${j.work_unit}`), dash(num(j.work_per_s, 3)),
      dash(`${j.objective_name} ${num(j.objective, 8)}`),
      dash(`imbalance ${j.imbalance.toFixed(2)}`)];
  }
  return [dash(`round ${num(j.round)}`), dash(num(j.updates)), dash(num(Math.round(j.updates_per_s))),
          dash(num(j.objective, 9)), dash(j.violation === null ? "-" : j.violation.toExponential(2))];
}

function renderJobs(status, shown) {
  fillTable("jobs", status.jobs.slice().reverse().map(j => {
    const tr = row([{text: String(j.job_id)}, {text: j.app, cls: "text"},
                    {text: j.engine, cls: "text"}, {text: j.state, cls: "text state-" + j.state.toLowerCase()},
                    ...jobCells(j).map(text => ({text})), {text: j.seconds.toFixed(1)}],
                   {"data-job": String(j.job_id), "data-state": j.state});
    if (j.error) tr.title = j.error;
    if (j.job_id === shown) tr.classList.add("selected");
    tr.addEventListener("click", () => { selected = j.job_id; refresh(); });
    return tr;
  }));
}

function pickJob(status) {
  if (selected !== null && status.jobs.some(j => j.job_id === selected)) return selected;
  const live = status.jobs.find(j => j.state === "RUNNING" || j.state === "LOADING");
  if (live) return live.job_id;
  return status.jobs.length ? status.jobs[status.jobs.length - 1].job_id : null;
}

// A tick's label: the shortest decimal that names it ("1.5", not "1.500"), grouped when large.
function tickLabel(t) {
  if (Math.abs(t) >= 1000) return Math.round(t).toLocaleString("en-US");
  return String(Number(t.toPrecision(6)));
}

// Nice tick values for [lo, hi].
function ticks(lo, hi, log) {
  if (log) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); ++e) out.push(10 ** e);
    return out.filter(t => t >= lo * 0.999 && t <= hi * 1.001);
  }
  const span = hi - lo || Math.abs(hi) || 1;
  const step0 = 10 ** Math.floor(Math.log10(span / 4));
  const step = [1, 2, 5, 10].map(m => m * step0).find(s => span / s <= 5);
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(t);
  return out;
}

// plot(figure, title, xlabel, series [{name, xs, ys}], logY): an SVG line plot; points whose y is
// null (or not positive on a log axis) are left out.
function plot(figure, title, xlabel, series, logY) {
  const W = 420, H = 260, L = 70, R = 12, T = 22, B = 38;
  const svg = svgEl("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-title": title});
  svg.appendChild(svgEl("text", {x: L, y: 15, class: "title"}, title));
  const clean = series.map(s => {
    const pts = [];
    for (let i = 0; i < s.xs.length; ++i) {
      const y = s.ys[i];
      if (y === null || y === undefined || !isFinite(y) || (logY && y <= 0)) continue;
      pts.push([s.xs[i], y]);
    }
    return {name: s.name, pts};
  });
  const all = clean.flatMap(s => s.pts);
  if (all.length === 0) {
    svg.appendChild(svgEl("text", {x: L, y: H / 2}, "no points yet"));
    figure.replaceChildren(svg);
    return;
  }
  let [x0, x1] = [Math.min(...all.map(p => p[0])), Math.max(...all.map(p => p[0]))];
  let [y0, y1] = [Math.min(...all.map(p => p[1])), Math.max(...all.map(p => p[1]))];
  if (x0 === x1) { x0 -= 0.5; x1 += 0.5; }
  if (y0 === y1) { const d = logY ? y0 * 0.5 : Math.abs(y0) * 0.05 || 1; y0 -= d; y1 += d; }
  const ty = v => logY ? Math.log10(v) : v;
  const sx = x => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = y => H - B - (ty(y) - ty(y0)) / (ty(y1) - ty(y0)) * (H - T - B);
  for (const t of ticks(y0, y1, logY)) {
    svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: sy(t), y2: sy(t), class: "grid"}));
    svg.appendChild(svgEl("text", {x: L - 4, y: sy(t) + 4, "text-anchor": "end"},
                          logY ? t.toExponential(0) : tickLabel(t)));
  }
  for (const t of ticks(x0, x1, false)) {
    svg.appendChild(svgEl("text", {x: sx(t), y: H - B + 14, "text-anchor": "middle"}, tickLabel(t)));
  }
  svg.appendChild(svgEl("line", {x1: L, x2: L, y1: T, y2: H - B, class: "axis"}));
  svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis"}));
  svg.appendChild(svgEl("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle"}, xlabel));
  clean.forEach((s, k) => {
    if (s.pts.length === 0) return;
    const color = COLORS[k % COLORS.length];
    svg.appendChild(svgEl("polyline", {
      class: "series", stroke: color, "data-series": s.name, "data-points": s.pts.length,
      points: s.pts.map(p => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" ")}));
    if (clean.length > 1) {
      svg.appendChild(svgEl("text", {x: W - R - 4, y: T + 12 * (k + 1), "text-anchor": "end",
                                     fill: color}, s.name));
    }
  });
  figure.replaceChildren(svg);
}

function renderTrace(job, trace) {
  document.getElementById("detail").hidden = false;
  const isStatic = job.engine === "static";
  const what = isStatic ? job.objective_name : "objective";
  const work = isStatic ? job.work_unit : "updates";
  document.getElementById("detail-title").textContent =
      `job ${job.job_id} (${job.app}, ${job.state}): ${what} against time and ${work}`;
  let ys = trace.objective, label = what;
  if (document.getElementById("gap").checked) {
    // A log-likelihood is maximized, every other objective minimized.
    const known = ys.filter(v => v !== null);
    const best = what.startsWith("loglik") ? Math.max(...known) : Math.min(...known);
    ys = ys.map(v => v === null ? null : Math.abs(v - best) / Math.max(Math.abs(best), 1e-300));
    label = `relative gap to the best ${what}`;
  }
  const gap = document.getElementById("gap").checked;
  plot(document.getElementById("plot-time"), `${label} vs seconds`, "seconds",
       [{name: what, xs: trace.seconds, ys}], gap);
  plot(document.getElementById("plot-updates"), `${label} vs ${work}`, work,
       [{name: what, xs: trace.updates, ys}], gap);
  const rate = trace.seconds.map((s, i) => i === 0 ? null :
      (trace.updates[i] - trace.updates[i - 1]) / Math.max(s - trace.seconds[i - 1], 1e-9));
  plot(document.getElementById("plot-rate"), `${work}/s vs seconds`, "seconds",
       [{name: `${work}/s`, xs: trace.seconds, ys: rate}], false);
  const workers = document.getElementById("plot-workers");
  workers.hidden = !isStatic;
  if (isStatic) {
    const n = Math.max(0, ...trace.worker_seconds.map(w => w.length));
    const series = [];
    for (let w = 0; w < n; ++w) {
      series.push({name: `worker ${w}`, xs: trace.round,
                   ys: trace.worker_seconds.map(ws => w < ws.length ? ws[w] : null)});
    }
    plot(workers, "per-worker sub-round seconds (load imbalance)", "sub-round", series, false);
  }
}

function showError(text) {
  const e = document.getElementById("error");
  e.hidden = !text;
  e.textContent = text || "";
}

async function getJson(path) {
  const r = await fetch(path, {cache: "no-store"});
  const body = await r.json();
  if (!r.ok) throw new Error(`${path}: ${body.error || r.status}`);
  return body;
}

async function refresh() {
  try {
    const status = await getJson("/api/status");
    document.getElementById("coordinator").textContent =
        `coordinator ${status.coordinator}, up ${status.uptime_s.toFixed(0)} s, ` +
        `${status.schedulers} scheduler(s), ${status.workers} worker(s)`;
    document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
    renderMembers(status);
    const id = pickJob(status);
    renderJobs(status, id);
    const job = status.jobs.find(j => j.job_id === id);
    if (job) renderTrace(job, await getJson(`/api/jobs/${id}/trace`));
    showError("");
  } catch (err) {
    showError("cannot reach the coordinator: " + err.message);
  }
}

document.getElementById("gap").addEventListener("change", refresh);
refresh();
setInterval(refresh, 1000);
